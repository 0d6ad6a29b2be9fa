import Foundation
import Testing

@testable import ModelKit

@Suite struct FetchDescriptorTests {
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        container = try inMemoryContainer(for: Ticket.self)
        let writer = ModelContext(container)
        let rows: [(String, Int, String?)] = [("500", 5, nil), ("50% off", 1, "b"), ("a_b", 3, "a"), ("axb", 2, nil), ("Zed", 4, "c")]
        for (title, count, note) in rows { writer.insert(Ticket(title, count: count, note: note)) }
        try writer.save()
        context = ModelContext(container)
    }

    func titles(_ descriptor: FetchDescriptor<Ticket>) throws -> [String] {
        try context.fetch(descriptor).map(\.title)
    }

    @Test func userTextMatchesLiterally() throws {
        #expect(try titles(FetchDescriptor(predicate: #Predicate { $0.title.contains("50%") })) == ["50% off"])
        #expect(try titles(FetchDescriptor(predicate: #Predicate { $0.title.contains("_") })) == ["a_b"])
        #expect(try titles(FetchDescriptor(predicate: #Predicate { $0.title.starts(with: "a_") })) == ["a_b"])
    }

    @Test func untranslatedPredicateIsAnsweredInSwiftAndLogged() throws {
        let log = CapturedModelKitLog()
        let descriptor = FetchDescriptor<Ticket>(predicate: #Predicate { $0.title.count > 3 }, sortBy: [SortDescriptor(\.title)])
        #expect(try titles(descriptor) == ["50% off"])
        // Again, once the predicate's type is known to have no translation.
        #expect(try titles(descriptor) == ["50% off"])
        #expect(log.messages(at: .debug).contains { $0.contains("runs in Swift") && $0.contains("KeyPath<KeyPath<Variable<Ticket>, String>, Int>") })
    }

    @Test func pendingChangesShowInResultsAndCounts() throws {
        let all = try context.fetch(FetchDescriptor<Ticket>())
        let zed = all.first { $0.title == "Zed" }!
        let axb = all.first { $0.title == "axb" }!
        let five = all.first { $0.title == "500" }!
        zed.count = 0  // no longer matches
        axb.count = 9  // now matches
        context.delete(five)
        context.insert(Ticket("new", count: 7))
        let descriptor = FetchDescriptor<Ticket>(predicate: #Predicate { $0.count > 2 }, sortBy: [SortDescriptor(\.title)])
        #expect(try titles(descriptor) == ["a_b", "axb", "new"])
        #expect(try context.fetchCount(descriptor) == 3)
        var stored = descriptor
        stored.includePendingChanges = false
        #expect(try titles(stored) == ["500", "Zed", "a_b"])
    }

    @Test func countRunsAsSelectCount() throws {
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var descriptor = FetchDescriptor<Ticket>(predicate: #Predicate { $0.count >= 2 })
        #expect(try context.fetchCount(descriptor) == 4)
        descriptor.fetchLimit = 2
        #expect(try context.fetchCount(descriptor) == 2)
        #expect(statements == [
            #"SELECT COUNT(*) FROM "Ticket" WHERE ("Ticket"."count" >= ?)"#,
            #"SELECT COUNT(*) FROM (SELECT 1 FROM "Ticket" WHERE ("Ticket"."count" >= ?) LIMIT ? OFFSET ?) AS "page""#,
        ])
        #expect(context.registered.isEmpty)
    }

    @Test func identifiersComeWithoutLoadingModels() throws {
        let ids = try context.fetchIdentifiers(FetchDescriptor<Ticket>(predicate: #Predicate { $0.note != nil }, sortBy: [SortDescriptor(\.title)]))
        #expect(context.registered.isEmpty)
        #expect(ids.count == 3)
        #expect(ids.compactMap { (context.model(for: $0) as? Ticket)?.title } == ["50% off", "Zed", "a_b"])
    }

    @Test func sortsBySeveralKeysOptionalKeysAndTheLexicalComparator() throws {
        let byNote = FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.note), SortDescriptor(\.title, comparator: .lexical)])
        #expect(try titles(byNote) == ["500", "axb", "a_b", "50% off", "Zed"])
        let reversed = FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.note, order: .reverse), SortDescriptor(\.count)])
        #expect(try titles(reversed) == ["Zed", "50% off", "a_b", "axb", "500"])
        let all = try context.fetch(FetchDescriptor<Ticket>())
        #expect(try context.fetch(byNote).map(\.title) == all.sorted(using: byNote.sortBy).map(\.title))
    }

    @Test func limitAndOffsetApplyAfterTheFilter() throws {
        var descriptor = FetchDescriptor<Ticket>(predicate: #Predicate { $0.count > 1 }, sortBy: [SortDescriptor(\.count)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        descriptor.propertiesToFetch = [\.title]
        #expect(try titles(descriptor) == ["a_b", "Zed"])
    }

    @Test func enumerateLoadsInBatches() throws {
        let writer = ModelContext(container)
        for index in 0..<95 { writer.insert(Ticket("bulk \(index)", count: 100 + index)) }
        try writer.save()
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var seen = 0
        var largestRegistered = 0
        try context.enumerate(FetchDescriptor<Ticket>(predicate: #Predicate { $0.count >= 100 }), batchSize: 10) { ticket in
            #expect(ticket.count == 100 + seen)
            seen += 1
            largestRegistered = max(largestRegistered, context.registered.count)
        }
        #expect(seen == 95)
        // The keys, then each batch: a range of keys, read straight through.
        #expect(statements.count == 11)
        #expect(statements.first?.hasPrefix(#"SELECT "_pk" FROM "Ticket" WHERE"#) == true)
        #expect(statements.dropFirst().allSatisfy { $0.hasSuffix(#"WHERE "_pk" BETWEEN ? AND ? ORDER BY "_pk""#) })
        #expect(largestRegistered <= 20)
    }

    /// The results are the ones when the enumeration starts: a row another context deletes
    /// meanwhile is skipped when its batch loads.
    @Test func enumerateSkipsARowDeletedBeforeItsBatchLoads() throws {
        let expected = try context.fetch(FetchDescriptor<Ticket>()).map(\.title)
        let other = ModelContext(container)
        let doomed = try other.fetch(FetchDescriptor<Ticket>()).last!
        var seen: [String] = []
        try context.enumerate(FetchDescriptor<Ticket>(), batchSize: 2) { ticket in
            if seen.isEmpty {
                other.delete(doomed)
                try? other.save()
            }
            seen.append(ticket.title)
        }
        #expect(expected.count > 2 && seen == Array(expected.dropLast()))
    }

    @Test func batchDeleteIsOneStatementAndKeepsRegisteredModelsConsistent() throws {
        let loaded = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)]))
        let doomed = loaded.filter { $0.count >= 3 }
        let kept = loaded.filter { $0.count < 3 }
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        nonisolated(unsafe) var deletedIDs: [PersistentIdentifier] = []
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) {
            deletedIDs = $0.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let expectedIDs = doomed.map(\.persistentModelID)

        try context.delete(model: Ticket.self, where: #Predicate { $0.count >= 3 })

        #expect(statements.filter { $0.hasPrefix("DELETE") } == [#"DELETE FROM "Ticket" WHERE ("Ticket"."count" >= ?) RETURNING "_pk""#])
        #expect(doomed.allSatisfy { $0.isDeleted && $0.modelContext == nil })
        #expect(kept.allSatisfy { !$0.isDeleted && $0.modelContext === context })
        #expect(Set(deletedIDs) == Set(expectedIDs))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["50% off", "axb"])
    }

    @Test func batchDeleteWithAnUntranslatedPredicateDeletesTheRightRows() throws {
        try context.delete(model: Ticket.self, where: #Predicate { $0.title.count == 3 })
        #expect(try ModelContext(container).fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["50% off"])
        try context.delete(model: Ticket.self)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Ticket>()) == 0)
    }

    @Test func batchDeleteRespectsAllowsSave() throws {
        let readOnly = ModelContext(try inMemoryContainer(for: Ticket.self, allowsSave: false))
        #expect(throws: ModelKitError.self) { try readOnly.delete(model: Ticket.self) }
    }
}

@Suite struct SortStorageTests {
    @Test func unsignedAndDecimalKeysSortByValue() throws {
        let context = ModelContext(try inMemoryContainer(for: Ticket.self))
        for (title, big, amount) in [("max", UInt64.max, Decimal(9)), ("one", 1, Decimal(10)), ("mid", UInt64(Int64.max) + 1, Decimal(string: "9.5")!)] {
            context.insert(Ticket(title, big: big, amount: amount))
        }
        try context.save()
        let reader = ModelContext(context.container)
        #expect(try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.big)])).map(\.title) == ["one", "mid", "max"])
        #expect(try reader.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.amount)])).map(\.title) == ["max", "mid", "one"])
    }
}

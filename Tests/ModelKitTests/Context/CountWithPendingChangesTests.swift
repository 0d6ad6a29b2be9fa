import Foundation
import Testing

@testable import ModelKit

/// `fetchCount` while the context has unsaved changes: the stored rows are counted in SQL and the
/// changes in memory, and the answer is the fetch's.
@Suite struct CountWithPendingChangesTests {
    /// Random inserts, changes (moving models into and out of the predicate), deletes and saves;
    /// after each step, every count agrees with the count of the same fetch.
    @Test(arguments: StoreKind.withPostgres)
    func countsAgreeWithTheFetchThroughUnsavedChanges(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Ticket.self))
        var random = SeededRandom(seed: 2026_11_30)
        for index in 0..<40 { context.insert(Ticket("t\(index)", count: index % 7)) }
        try context.save()
        var descriptors = [
            FetchDescriptor<Ticket>(), FetchDescriptor(predicate: #Predicate { $0.count > 3 }),
            FetchDescriptor(predicate: #Predicate { $0.count <= 2 && $0.isOpen }),
        ]
        for base in descriptors.prefix(2) {
            var paged = base
            paged.fetchOffset = 5
            paged.fetchLimit = 4
            descriptors.append(paged)
            paged.fetchOffset = 60
            descriptors.append(paged)
        }
        for _ in 0..<150 {
            try makeRandomUnsavedChange(in: context, using: &random)
            for descriptor in descriptors {
                #expect(try context.fetchCount(descriptor) == context.fetch(descriptor).count)
            }
        }
    }

    /// With unsaved changes, the count reads one `SELECT COUNT(*)` that leaves out the changed
    /// and deleted rows, not every row.
    @Test func aCountWithUnsavedChangesLoadsNoRows() throws {
        let context = ModelContext(try inMemoryContainer(for: Ticket.self))
        for index in 0..<10 { context.insert(Ticket("t\(index)", count: index)) }
        try context.save()
        let stored = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)]))
        stored[0].count = 9  // now matches
        context.delete(stored[9])  // matched
        context.insert(Ticket("new", count: 8))
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        #expect(try context.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.count > 4 })) == 6)
        #expect(statements == [
            #"SELECT COUNT(*) FROM "Ticket" WHERE ("Ticket"."count" > ?) AND NOT ("_pk" IN (SELECT value FROM json_each(?)))"#
        ])
    }
}

/// One random step over a context's tickets: an insert, a change of `count` or `isOpen` (which
/// moves a ticket into or out of predicates and through an order), a delete, or a save.
func makeRandomUnsavedChange(in context: ModelContext, using random: inout SeededRandom) throws {
    let stored = try context.fetch(FetchDescriptor<Ticket>())
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<3: context.insert(Ticket("n\(stored.count)", count: Int.random(in: 0..<7, using: &random)))
    case 3..<6: stored.randomElement(using: &random)?.count = Int.random(in: 0..<7, using: &random)
    case 6: stored.randomElement(using: &random)?.isOpen.toggle()
    case 7..<9: stored.randomElement(using: &random).map(context.delete)
    default: try context.save()
    }
}

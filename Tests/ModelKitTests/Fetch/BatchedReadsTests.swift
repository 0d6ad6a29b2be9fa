import Foundation
import Testing

@testable import ModelKit

/// `fetch(_:batchSize:)`, `enumerate` and `fetchIdentifiers` read the results' keys first and
/// load each batch's rows when it is read. With unsaved changes, the stored rows nothing here
/// changed stay keys too, and the results are the fetch's, in its order.
@Suite struct BatchedReadsTests {
    static var descriptors: [FetchDescriptor<Ticket>] {
        var descriptors = [
            FetchDescriptor<Ticket>(),
            FetchDescriptor(predicate: #Predicate { $0.count > 2 }),
            FetchDescriptor(sortBy: [SortDescriptor(\.count)]),
            FetchDescriptor(
                predicate: #Predicate { $0.isOpen }, sortBy: [SortDescriptor(\.count, order: .reverse), SortDescriptor(\.title)]),
        ]
        for base in descriptors.suffix(3) {
            var paged = base
            paged.fetchOffset = 3
            paged.fetchLimit = 7
            descriptors.append(paged)
        }
        return descriptors
    }

    /// Random inserts, changes (moving models in and out of the predicate and through the
    /// order), deletes and saves; after each step, the batched reads agree with the fetch.
    @Test(arguments: StoreKind.withPostgres)
    func batchedReadsAgreeWithTheFetchThroughUnsavedChanges(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Ticket.self))
        var random = SeededRandom(seed: 2026_11_30)
        for index in 0..<30 { context.insert(Ticket("t\(index % 9)", count: index % 6, isOpen: index % 3 != 0)) }
        try context.save()
        let descriptors = Self.descriptors
        for _ in 0..<120 {
            try makeRandomUnsavedChange(in: context, using: &random)
            for descriptor in descriptors {
                let fetched = try context.fetch(descriptor)
                #expect(try context.fetchIdentifiers(descriptor) == fetched.map(\.persistentModelID))
                let batched = try context.fetch(descriptor, batchSize: 4)
                #expect(batched.count == fetched.count && zip(batched, fetched).allSatisfy { $0 === $1 })
                var enumerated: [Ticket] = []
                try context.enumerate(descriptor, batchSize: 3) { enumerated.append($0) }
                #expect(enumerated.count == fetched.count && zip(enumerated, fetched).allSatisfy { $0 === $1 })
            }
        }
    }

    /// With an unsaved change, a batched fetch reads the keys and sort values first, then each
    /// batch's rows when it is read: not every row at once.
    @Test func aBatchedFetchWithAnUnsavedChangeLoadsOneBatchAtATime() throws {
        let context = ModelContext(try inMemoryContainer(for: Ticket.self))
        for index in 0..<10 { context.insert(Ticket("t\(index)", count: index)) }
        try context.save()
        let stored = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.count)]))
        stored[9].count = -1  // sorts first now
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let results = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.count)]), batchSize: 4)
        #expect(results.count == 10)
        #expect(statements == [#"SELECT "_pk", "count" FROM "Ticket" ORDER BY "count" ASC, "_pk" ASC"#])
        #expect(results[0] === stored[9] && results[1] === stored[0])
        let range = #""_pk" BETWEEN ? AND ? ORDER BY "_pk""#
        #expect(statements.count == 2 && statements[1].hasSuffix(range), "keys 1 to 3: \(statements)")
        _ = results[4]  // keys 4 to 7
        #expect(statements.count == 3 && statements[2].hasSuffix(range))
        stored[1].count = 100  // key 2 sorts last now: the first batch's stored keys are 1, 3 and 4
        let reordered = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.count)]), batchSize: 4)
        #expect(reordered.map(\.count) == [-1, 0, 2, 3, 4, 5, 6, 7, 8, 100])
        let keyList = #""_pk" IN (SELECT value FROM json_each(?)))"#
        #expect(statements.count == 7 && statements[4].hasSuffix(keyList), "the keys, then three batches: \(statements)")
    }

    /// A batch of keys out of order loads its rows by one JSON array of keys, however many there
    /// are (a list of parameters meets the database's limit, 65,535 on PostgreSQL), and the
    /// models come in the results' order.
    @Test func aBatchOfKeysOutOfOrderLoadsByOneArrayInOrder() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        for index in 0..<3_000 {
            let item = TodoItem(title: "\(index)")
            item.priority = -index
            context.insert(item)
        }
        try context.save()
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var priorities: [Int] = []
        try context.enumerate(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.priority)]), batchSize: 2_000) { item in
            priorities.append(item.priority)
        }
        #expect(priorities == Array((-2_999...0)))
        let keyList = #"IN (SELECT value FROM json_each(?)))"#
        #expect(statements.count == 3 && statements.dropFirst().allSatisfy { $0.hasSuffix(keyList) })
    }

    /// A predicate through a relationship, with unsaved moves between the related models: the
    /// batched reads, the identifiers and the count agree with the fetch.
    @Test func unsavedMovesThroughARelationshipCountAsInTheFetch() throws {
        let context = ModelContext(try inMemoryContainer(for: Pallet.self, Parcel.self))
        let (a, b) = (Pallet(name: "A"), Pallet(name: "B"))
        context.insert(a)
        context.insert(b)
        let parcels = (0..<12).map { Parcel(label: "p\($0 % 5)-\($0)") }
        for (index, parcel) in parcels.enumerated() {
            context.insert(parcel)
            parcel.pallet = index.isMultiple(of: 2) ? a : b
        }
        try context.save()
        parcels[1].pallet = a  // joins A
        parcels[2].pallet = b  // leaves A
        parcels[4].label = "p0-moved"  // moves through the order
        context.delete(parcels[6])
        let new = Parcel(label: "p2-new")
        context.insert(new)
        new.pallet = a
        var descriptor = FetchDescriptor<Parcel>(
            predicate: #Predicate { $0.pallet?.name == "A" }, sortBy: [SortDescriptor(\.label)])
        for (offset, limit) in [(nil, nil), (1, 4)] as [(Int?, Int?)] {
            descriptor.fetchOffset = offset
            descriptor.fetchLimit = limit
            let fetched = try context.fetch(descriptor)
            #expect(fetched.contains { $0 === parcels[1] } || offset != nil)
            #expect(try context.fetchIdentifiers(descriptor) == fetched.map(\.persistentModelID))
            let batched = try context.fetch(descriptor, batchSize: 2)
            #expect(batched.map(\.persistentModelID) == fetched.map(\.persistentModelID))
            #expect(try context.fetchCount(descriptor) == fetched.count)
        }
    }
}


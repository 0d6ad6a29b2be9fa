import Foundation
import Testing

@testable import ModelKit

/// `fetch(_:batchSize:)`: SwiftData's batched results, loading a batch at a time.
@Suite struct FetchResultsCollectionTests {
    func filled(_ count: Int) throws -> ModelContainer {
        let container = try inMemoryContainer(for: TodoItem.self)
        let context = ModelContext(container)
        for index in 0..<count {
            let item = TodoItem(title: String(format: "item %04d", index))
            item.priority = index % 7
            context.insert(item)
        }
        try context.save()
        return container
    }

    @Test func modelsLoadABatchAtATimeInTheFetchsOrder() throws {
        let context = ModelContext(try filled(1000))
        let descriptor = FetchDescriptor<TodoItem>(predicate: #Predicate { $0.priority != 3 }, sortBy: [SortDescriptor(\.title, order: .reverse)])
        let expected = try ModelContext(context.container).fetch(descriptor).map(\.title)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let results = try context.fetch(descriptor, batchSize: 100)
        #expect(results.count == expected.count)
        #expect(statements.count == 1, "only the identifiers are read up front")
        _ = results[0]
        _ = results[99]
        #expect(statements.count == 2)
        _ = results[100]
        #expect(statements.count == 3)
        #expect(results.map(\.title) == expected)
        #expect(results.last?.title == expected.last)
    }

    @Test func memoryFollowsTheBatchNotTheResults() throws {
        let context = ModelContext(try filled(600))
        let results = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 50)
        weak let first = results[0]
        #expect(first != nil)
        for index in stride(from: 50, to: 600, by: 50) { _ = results[index] }
        #expect(first == nil, "the first batch's models were released")
        #expect(context.registered.count <= 100)
    }

    @Test func unsavedChangesOfTheTypeAreIncludedAsInAFetch() throws {
        let context = ModelContext(try filled(10))
        context.insert(TodoItem(title: "item 9999 unsaved"))
        let results = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 3)
        #expect(results.count == 11)
        #expect(results.last?.title == "item 9999 unsaved")
    }

    @Test func aRowDeletedAfterTheFetchReadsAsAStandIn() throws {
        let container = try filled(5)
        let context = ModelContext(container)
        let results = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]), batchSize: 2)
        let other = ModelContext(container)
        try other.delete(model: TodoItem.self, where: #Predicate { $0.title == "item 0004" })
        #expect(results.count == 5)
        #expect(results[4].title == "", "a stand-in, as model(for:) gives")
        #expect(results[3].title == "item 0003")
    }

    @Test func identifiersComeAsACollectionToo() throws {
        let context = ModelContext(try filled(20))
        let descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])
        #expect(Array(try context.fetchIdentifiers(descriptor, batchSize: 7)) == (try context.fetchIdentifiers(descriptor)))
    }

    @Test func aBatchSizeBelowOneIsATypedError() throws {
        let context = ModelContext(try filled(1))
        #expect(throws: ModelKitError.self) { try context.fetch(FetchDescriptor<TodoItem>(), batchSize: 0) }
        #expect(throws: ModelKitError.self) { try context.fetchIdentifiers(FetchDescriptor<TodoItem>(), batchSize: -1) }
    }
}

import Foundation
import ModelKit
import ModelKitPostgres
import Testing

/// The same models, fetches and predicates on PostgreSQL as on SQLite.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresStoreTests {
    @Test func modelsRoundTripThroughInsertFetchUpdateAndDelete() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        let milk = TodoItem(title: "Buy milk")
        context.insert(milk)
        context.insert(TodoItem(title: "Walk the dog", isComplete: true))
        try context.save()
        #expect(!milk.persistentModelID.isTemporary)

        let reader = ModelContext(container)
        let open = try reader.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.isComplete }, sortBy: [SortDescriptor(\.title)]))
        #expect(open.map(\.title) == ["Buy milk"])
        open[0].priority = 3
        try reader.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.priority == 3 })).count == 1)
        reader.delete(open[0])
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 1)
    }
}

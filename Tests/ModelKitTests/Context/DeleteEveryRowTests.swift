import Foundation
import ModelKit
import Testing

/// `delete(model:)` with no predicate: on SQLite a bare `DELETE` that truncates the table, after
/// the keys are worked out from the key range when it has no gaps, or read row by row when it
/// has. Either way `didSave` names exactly the rows that were there.
@Suite struct DeleteEveryRowTests {
    /// The deleted identifiers `didSave` reports for `body`'s saves and deletes.
    func deletedIdentifiers(in context: ModelContext, _ body: () throws -> Void) rethrows -> [PersistentIdentifier] {
        nonisolated(unsafe) var deleted: [PersistentIdentifier] = []
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) {
            deleted += $0.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try body()
        return deleted
    }

    @Test(arguments: StoreKind.allCases) func keysWithoutGapsAreReportedEachOnce(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: TodoItem.self))
        let items = (0..<50).map { TodoItem(title: "#\($0)") }
        items.forEach(context.insert)
        try context.save()
        let expected = items.map(\.persistentModelID)

        let deleted = try deletedIdentifiers(in: context) { try context.delete(model: TodoItem.self) }
        #expect(deleted.count == 50 && Set(deleted) == Set(expected))
        #expect(items.allSatisfy { $0.isDeleted })
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<TodoItem>()) == 0)
    }

    @Test(arguments: StoreKind.allCases) func keysWithGapsAreReadOneByOne(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: TodoItem.self))
        let items = (0..<50).map { TodoItem(title: "#\($0)") }
        items.forEach(context.insert)
        try context.save()
        for item in items[10..<20] { context.delete(item) }
        context.insert(TodoItem(title: "new"))  // after the largest key: the range has a gap
        try context.save()
        let expected = try context.fetch(FetchDescriptor<TodoItem>()).map(\.persistentModelID)

        let deleted = try deletedIdentifiers(in: context) { try context.delete(model: TodoItem.self) }
        #expect(deleted.count == 41 && Set(deleted) == Set(expected))
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<TodoItem>()) == 0)
    }

    @Test func anEmptyTableReportsNothing() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        let deleted = try deletedIdentifiers(in: context) { try context.delete(model: TodoItem.self) }
        #expect(deleted.isEmpty)
    }

    /// Another program's rows may have any keys: ones at the ends of `Int64`, whose span does not
    /// fit in one, are read rather than made from the range.
    @Test func keysAtTheLimitsOfInt64AreReadNotComputed() throws {
        let store = try TemporaryStore()
        do {
            let context = ModelContext(try store.container(for: TodoItem.self))
            context.insert(TodoItem(title: "made here"))
            try context.save()
        }
        _ = try store.sql(
            #"INSERT INTO "TodoItem" ("_pk", "title", "isComplete", "priority") VALUES (\#(Int64.min), 'low', 0, 0), (\#(Int64.max), 'high', 0, 0)"#)
        let context = ModelContext(try store.container(for: TodoItem.self))
        let expected = try context.fetch(FetchDescriptor<TodoItem>()).map(\.persistentModelID)
        #expect(expected.count == 3)

        let deleted = try deletedIdentifiers(in: context) { try context.delete(model: TodoItem.self) }
        #expect(Set(deleted) == Set(expected) && deleted.count == 3)
        let remaining = try store.sql(#"SELECT count(*) FROM "TodoItem""#)
        #expect(remaining == [["0"]])
    }
}

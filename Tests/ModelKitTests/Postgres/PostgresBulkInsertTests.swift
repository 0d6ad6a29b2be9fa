import Foundation
@testable import ModelKit
import ModelKitPostgres
import Testing

/// A save inserting many rows on PostgreSQL takes their keys in one round trip and writes them in
/// multi-row statements; models, references, history and later inserts are as with one row at a
/// time.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresBulkInsertTests {
    @Test func aSaveOfManyRowsWritesThemInMultiRowStatementsAndEachModelFindsItsRow() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self, Shelf.self, Book.self)
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let items = (0..<2_500).map { TodoItem(title: "item \($0)") }
        for item in items { context.insert(item) }
        let shelves = (0..<3).map { Shelf(name: "shelf \($0)") }
        for (index, shelf) in shelves.enumerated() {
            for number in 0..<4 { shelf.books.append(Book(title: "book \(index).\(number)")) }
            context.insert(shelf)
        }
        try context.save()

        let inserts = statements.filter { $0.hasPrefix(#"INSERT INTO "TodoItem""#) }
        #expect(inserts.count == 3, "1,000 rows a statement: \(inserts.count) statements")
        #expect(statements.filter { $0.contains("nextval") }.count == 3, "one key reservation per entity")
        #expect(Set(items.map(\.persistentModelID)).count == 2_500)

        let reader = ModelContext(container)
        for index in [0, 999, 1_000, 2_499] {
            #expect((reader.model(for: items[index].persistentModelID) as? TodoItem)?.title == "item \(index)")
        }
        let books = try reader.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map { $0.shelf?.name } == (0..<3).flatMap { index in Array(repeating: "shelf \(index)", count: 4) })
        let history = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 1)
        #expect(history.first?.changes.count == 2_500 + 3 + 12)

        let later = TodoItem(title: "one more")
        context.insert(later)
        try context.save()
        #expect(later.persistentModelID.rowID! > items.compactMap(\.persistentModelID.rowID).max()!)
        #expect(try reader.fetchCount(FetchDescriptor<TodoItem>()) == 2_501)
    }

    @Test func aFailedBulkSaveWritesNothingAndItsModelsCanBeSavedAgain() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        let items = (0..<1_500).map { TodoItem(title: "item \($0)") }
        for item in items { context.insert(item) }
        items[1_200].title = "bad \u{0}"
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 0)
        items[1_200].title = "fixed"
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 1_500)
    }
}

import Foundation
@testable import ModelKit
import ModelKitPostgres
import Testing

/// A save inserting or changing many rows on PostgreSQL writes them in multi-row statements (new
/// rows take their keys in one round trip); models, references, history, conflicts and later
/// saves are as with one row at a time.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresBulkWriteTests {
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
        #expect {
            try context.save()
        } throws: { error in
            databaseError(error)?.code == .unsupportedValue
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 0)
        items[1_200].title = "fixed"
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 1_500)
    }

    @Test func aSaveChangingManyRowsWritesThemInMultiRowStatementsWithEveryKindOfValue() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: AllTypes.self, TodoItem.self)
        let seed = ModelContext(container)
        let rows = (0..<1_200).map { _ in AllTypes() }
        for row in rows { seed.insert(row) }
        try seed.save()

        let context = ModelContext(container)
        let models = try context.fetch(FetchDescriptor<AllTypes>())
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        for (index, model) in models.enumerated() {
            model.double = index == 0 ? .nan : Double(index) / 3
            model.string = "it's \(index)"
            model.optionalDate = index.isMultiple(of: 2) ? nil : Date(timeIntervalSince1970: Double(index))
            model.data = Data([UInt8(index % 256), 0, 255])
            model.uint64 = .max
        }
        try context.save()
        // Rows changed alike share statements (here, those setting a date and those leaving it nil).
        #expect(statements.filter { $0.hasPrefix(#"UPDATE "AllTypes""#) }.count <= 4, "\(statements.count) statements")

        let reread = try ModelContext(container).fetch(FetchDescriptor<AllTypes>())
        let byID = Dictionary(uniqueKeysWithValues: reread.map { ($0.persistentModelID, $0) })
        for (index, model) in models.enumerated() {
            let stored = try #require(byID[model.persistentModelID])
            #expect(index == 0 ? stored.double.isNaN : stored.double == Double(index) / 3)
            #expect(stored.string == "it's \(index)")
            #expect(stored.optionalDate == (index.isMultiple(of: 2) ? nil : Date(timeIntervalSince1970: Double(index))))
            #expect(stored.data == Data([UInt8(index % 256), 0, 255]))
            #expect(stored.uint64 == .max)
        }
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.last?.changes.count == 1_200)
    }

    @Test func aManyRowSaveTouchingARowAnotherInstanceDeletedIsAConflictAndWritesNothing() throws {
        let database = PostgresTestDatabase()
        let first = try database.container(for: TodoItem.self, instance: 1)
        let second = try database.container(for: TodoItem.self, instance: 2)
        let seed = ModelContext(first)
        for index in 0..<50 { seed.insert(TodoItem(title: "item \(index)")) }
        try seed.save()

        let editor = ModelContext(second)
        let items = try editor.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]))
        let deleter = ModelContext(first)
        let doomed = try #require(deleter.model(for: items[17].persistentModelID) as? TodoItem)
        deleter.delete(doomed)
        try deleter.save()

        for item in items { item.priority = 9 }
        #expect {
            try editor.save()
        } throws: { error in
            guard case .saveConflict(entity: "TodoItem", let identifiers)? = modelKitError(error) else { return false }
            return identifiers == [items[17].persistentModelID]
        }
        let stored = try ModelContext(first).fetch(FetchDescriptor<TodoItem>())
        #expect(stored.count == 49)
        #expect(stored.allSatisfy { $0.priority == 0 }, "the failed save wrote nothing")
    }
}

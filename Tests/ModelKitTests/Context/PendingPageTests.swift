import Foundation
@testable import ModelKit
import Testing

/// A limited fetch that sees unsaved changes reads a window of rows, not the table, and gives the
/// same page as the whole fetch would.
@Suite struct PendingPageTests {
    func context(rows: Int) throws -> ModelContext {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        for index in 0..<rows {
            let item = TodoItem(title: String(format: "item %04d", index))
            item.priority = index % 17
            context.insert(item)
        }
        try context.save()
        return context
    }

    @Test func aLimitedFetchWithPendingChangesReadsOnlyAWindow() throws {
        let context = try context(rows: 2_000)
        try #require(try context.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == "item 1999" })).first)
            .title = "aab changed"
        context.insert(TodoItem(title: "aaa new"))
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])
        descriptor.fetchLimit = 20
        let page = try context.fetch(descriptor)
        #expect(page.prefix(2).map(\.title) == ["aaa new", "aab changed"])
        #expect(page.count == 20)
        #expect(statements.contains { $0.hasPrefix("SELECT") && $0.hasSuffix("LIMIT ?") })
    }

    @Test(arguments: 0..<40)
    func thePageMatchesTheWholeFetch(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 1)
        let context = try context(rows: 120)
        let stored = try context.fetch(FetchDescriptor<TodoItem>())
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let item = stored.randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0: context.delete(item)
            case 1: item.priority = Int.random(in: -5...25, using: &random)
            case 2: item.title = "moved \(Int.random(in: 0...999, using: &random))"
            default:
                let new = TodoItem(title: "new \(Int.random(in: 0...999, using: &random))")
                new.priority = Int.random(in: 0...20, using: &random)
                context.insert(new)
            }
        }
        var descriptor = FetchDescriptor<TodoItem>(
            predicate: #Predicate { $0.priority > 3 }, sortBy: [SortDescriptor(\.priority, order: .reverse), SortDescriptor(\.title)])
        let whole = try context.fetch(descriptor).map(\.persistentModelID)
        let offset = Int.random(in: 0...30, using: &random)
        let limit = Int.random(in: 1...25, using: &random)
        descriptor.fetchOffset = offset
        descriptor.fetchLimit = limit
        let page = try context.fetch(descriptor).map(\.persistentModelID)
        #expect(page == Array(whole.dropFirst(offset).prefix(limit)))
    }
}

/// Unsaved models are merged into a sorted page in the order SQLite gives stored rows.
@Suite struct PendingOrderTests {
    /// Titles where Swift's string order and SQLite's byte order disagree: a decomposed "é" is
    /// equal to the composed one in Swift, and after "z" in bytes.
    static let titles = ["b", "B", "e\u{301}", "\u{e9}", "z", "Zebra", "ä", "a b", "ab", "", "😀", "e"]

    @Test(arguments: [SortOrder.forward, .reverse])
    func aMergedPageIsInTheOrderTheSavedRowsHave(order: SortOrder) throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let context = ModelContext(container)
        for (index, title) in Self.titles.enumerated() where index % 2 == 0 {
            context.insert(TodoItem(title: title))
        }
        try context.save()
        for (index, title) in Self.titles.enumerated() where index % 2 == 1 {
            context.insert(TodoItem(title: title))
        }
        let descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title, comparator: .lexical, order: order)])
        let merged = try context.fetch(descriptor).map(\.title)
        try context.save()
        let stored = try ModelContext(container).fetch(descriptor).map(\.title)
        #expect(merged == stored)
    }

    @Test func sqliteOrderAgreesWithSQLitesOrderBy() throws {
        let values: [SQLValue] = [
            .null, .integer(-3), .integer(0), .integer(2), .integer(Int64.max), .real(-2.5), .real(0.5), .real(2), .real(1e300),
            .text(""), .text("a"), .text("B"), .text("e\u{301}"), .text("\u{e9}"), .text("😀"),
            .blob(Data()), .blob(Data([0])), .blob(Data([1, 2])), .blob(Data([0xFF])),
        ]
        let file = try TemporaryStore()
        let connection = try RawConnection(path: file.url.path)
        try connection.execute("CREATE TABLE t (i INTEGER, v)")
        for (index, value) in values.enumerated() {
            let literal = switch value {
            case .null: "NULL"
            case .integer(let number): "\(number)"
            case .real(let number): "\(number)"
            case .text(let text): "'\(text)'"
            case .blob(let data): "x'\(data.map { String(format: "%02x", $0) }.joined())'"
            }
            try connection.execute("INSERT INTO t VALUES (\(index), \(literal))")
        }
        let sqlite = try file.sql("SELECT i FROM t ORDER BY v, i").map { Int($0[0])! }
        let swift = values.indices.sorted { lhs, rhs in
            switch values[lhs].sqliteOrder(comparedTo: values[rhs]) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs < rhs
            }
        }
        #expect(swift == sqlite)
    }
}

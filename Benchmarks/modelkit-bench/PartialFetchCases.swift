import Foundation
import ModelKit

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// A model of eight attributes, for fetches that read two of them.
@Model
final class BenchWide {
    var title: String
    var subtitle: String
    var body: String
    var price: Int
    var quantity: Int
    var rating: Double
    var createdAt: Date
    var isActive: Bool

    init(_ i: Int) {
        title = "title \(i)"
        subtitle = "subtitle of item \(i)"
        body = String(repeating: "body text \(i) ", count: 4)
        price = i % 1000
        quantity = i % 17
        rating = Double(i % 50) / 10
        createdAt = Date(timeIntervalSinceReferenceDate: Double(i))
        isActive = i.isMultiple(of: 2)
    }
}

/// `fetch_all_wide` reads every row and column of `BenchWide`; `fetch_all_partial` reads the
/// same rows with `propertiesToFetch` of two properties, against raw SQLite reading those two
/// columns. As in `fetch_all`, the engine's models hold the values read; the raw side's structs
/// do, and it checks their sum.
func partialFetchCases(rows n: Int, options: Options) throws -> [CaseResult] {
    guard options.wants("fetch_all_wide", "fetch_all_partial") else { return [] }
    return try withTemporaryDirectory { directory in
        let container = try ModelContainer(
            for: BenchWide.self, configurations: ModelConfiguration(url: directory.appendingPathComponent("engine.store")))
        let context = ModelContext(container)
        for i in 0..<n { context.insert(BenchWide(i)) }
        try context.save()
        let raw = RawWide(path: directory.appendingPathComponent("raw.sqlite").path, rows: n)
        let expected = raw.fetchTwo().reduce(0) { $0 + $1.price + $1.title.utf8.count }

        func engineCount(_ descriptor: FetchDescriptor<BenchWide>) throws -> Int {
            try ModelContext(container).fetch(descriptor).count
        }
        var results: [CaseResult] = []
        results.appendIfPresent(
            try measure("fetch_all_wide", options) {
                try seconds {
                    let count = try engineCount(FetchDescriptor())
                    precondition(count == n)
                }
            } raw: {
                seconds { precondition(raw.fetchAll().reduce(0) { $0 + $1.price + $1.title.utf8.count } == expected) }
            })
        var partial = FetchDescriptor<BenchWide>()
        partial.propertiesToFetch = [\.title, \.price]
        results.appendIfPresent(
            try measure("fetch_all_partial", options) {
                try seconds {
                    let count = try engineCount(partial)
                    precondition(count == n)
                }
            } raw: {
                seconds { precondition(raw.fetchTwo().reduce(0) { $0 + $1.price + $1.title.utf8.count } == expected) }
            })
        return results
    }
}

/// The raw side: the same table, read whole or two columns at a time into plain structs.
final class RawWide: RawSQLiteDatabase {
    struct Row {
        var pk: Int64
        var title: String
        var subtitle: String
        var body: String
        var price: Int
        var quantity: Int
        var rating: Double
        var createdAt: Double
        var isActive: Bool
    }

    struct Two {
        var pk: Int64
        var title: String
        var price: Int
    }

    private(set) var db: OpaquePointer?

    init(path: String, rows: Int) {
        guard sqlite3_open(path, &db) == SQLITE_OK else { fatalError("cannot open \(path)") }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        exec(
            #"CREATE TABLE "BenchWide" ("_pk" INTEGER PRIMARY KEY, "title" TEXT, "subtitle" TEXT, "body" TEXT, "price" INTEGER, "#
                + #""quantity" INTEGER, "rating" REAL, "createdAt" REAL, "isActive" INTEGER)"#)
        exec("BEGIN IMMEDIATE")
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let insert = prepare(
            #"INSERT INTO "BenchWide" ("title", "subtitle", "body", "price", "quantity", "rating", "createdAt", "isActive") VALUES (?, ?, ?, ?, ?, ?, ?, ?)"#
        )
        for i in 0..<rows {
            let item = BenchWide(i)
            sqlite3_bind_text(insert, 1, item.title, -1, transient)
            sqlite3_bind_text(insert, 2, item.subtitle, -1, transient)
            sqlite3_bind_text(insert, 3, item.body, -1, transient)
            sqlite3_bind_int64(insert, 4, Int64(item.price))
            sqlite3_bind_int64(insert, 5, Int64(item.quantity))
            sqlite3_bind_double(insert, 6, item.rating)
            sqlite3_bind_double(insert, 7, item.createdAt.timeIntervalSinceReferenceDate)
            sqlite3_bind_int64(insert, 8, item.isActive ? 1 : 0)
            guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(message) }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        exec("COMMIT")
    }

    deinit { sqlite3_close_v2(db) }

    func fetchAll() -> [Row] {
        let statement = prepare(
            #"SELECT "_pk", "title", "subtitle", "body", "price", "quantity", "rating", "createdAt", "isActive" FROM "BenchWide""#
        )
        defer { sqlite3_finalize(statement) }
        var rows: [Row] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(
                Row(
                    pk: sqlite3_column_int64(statement, 0), title: String(cString: sqlite3_column_text(statement, 1)),
                    subtitle: String(cString: sqlite3_column_text(statement, 2)),
                    body: String(cString: sqlite3_column_text(statement, 3)),
                    price: Int(sqlite3_column_int64(statement, 4)), quantity: Int(sqlite3_column_int64(statement, 5)),
                    rating: sqlite3_column_double(statement, 6), createdAt: sqlite3_column_double(statement, 7),
                    isActive: sqlite3_column_int64(statement, 8) != 0))
        }
        return rows
    }

    func fetchTwo() -> [Two] {
        let statement = prepare(#"SELECT "_pk", "title", "price" FROM "BenchWide""#)
        defer { sqlite3_finalize(statement) }
        var rows: [Two] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(
                Two(
                    pk: sqlite3_column_int64(statement, 0), title: String(cString: sqlite3_column_text(statement, 1)),
                    price: Int(sqlite3_column_int64(statement, 2))))
        }
        return rows
    }
}

import Foundation

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// The floor: each case written by hand against SQLite's C API, reading into plain structs, with
/// prepared statements, one transaction per write, and the engine's schema and indexes.
final class RawStore: RawSQLiteDatabase {
    private(set) var db: OpaquePointer?

    init(path: String) {
        guard sqlite3_open(path, &db) == SQLITE_OK else { fatalError("cannot open \(path)") }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { sqlite3_close_v2(db) }

    func createSchema() {
        exec(
            """
            CREATE TABLE "BenchItem" ("_pk" INTEGER PRIMARY KEY, "key" INTEGER, "name" TEXT, "value" REAL, "flag" INTEGER);
            CREATE UNIQUE INDEX "BenchItem_key_unique" ON "BenchItem" ("key");
            CREATE INDEX "BenchItem_value_index" ON "BenchItem" ("value");
            """)
    }

    func createFamilySchema() {
        exec(
            """
            CREATE TABLE "BenchParent" ("_pk" INTEGER PRIMARY KEY, "name" TEXT);
            CREATE TABLE "BenchChild" ("_pk" INTEGER PRIMARY KEY, "title" TEXT, "position" INTEGER, "parent" INTEGER);
            CREATE INDEX "BenchChild_parent_index" ON "BenchChild" ("parent");
            """)
    }

    func insertFamilies(_ parents: Int) {
        exec("BEGIN IMMEDIATE")
        let parent = prepare(#"INSERT INTO "BenchParent" ("name") VALUES (?)"#)
        let child = prepare(#"INSERT INTO "BenchChild" ("title", "position", "parent") VALUES (?, ?, ?)"#)
        for p in 0..<parents {
            sqlite3_bind_text(parent, 1, "parent \(p)", -1, transient)
            guard sqlite3_step(parent) == SQLITE_DONE else { fatalError(message) }
            sqlite3_reset(parent)
            let parentKey = sqlite3_last_insert_rowid(db)
            for c in 0..<10 { insertChild(child, title: "child \(p).\(c)", position: c, parent: parentKey) }
        }
        sqlite3_finalize(parent)
        sqlite3_finalize(child)
        exec("COMMIT")
    }

    /// One parent and `count` children pointing at it, in one transaction.
    func appendChildren(_ count: Int) {
        exec("BEGIN IMMEDIATE")
        let parent = prepare(#"INSERT INTO "BenchParent" ("name") VALUES (?)"#)
        let child = prepare(#"INSERT INTO "BenchChild" ("title", "position", "parent") VALUES (?, ?, ?)"#)
        sqlite3_bind_text(parent, 1, "parent", -1, transient)
        guard sqlite3_step(parent) == SQLITE_DONE else { fatalError(message) }
        let parentKey = sqlite3_last_insert_rowid(db)
        for c in 0..<count { insertChild(child, title: "child \(c)", position: c, parent: parentKey) }
        sqlite3_finalize(parent)
        sqlite3_finalize(child)
        exec("COMMIT")
    }

    /// `requests` times: reads the one parent's key, then inserts a child of it in a transaction
    /// of its own.
    func joinOneChildEach(requests: Int) {
        let select = prepare(#"SELECT "_pk" FROM "BenchParent" LIMIT 1"#)
        let child = prepare(#"INSERT INTO "BenchChild" ("title", "position", "parent") VALUES (?, ?, ?)"#)
        for request in 0..<requests {
            guard sqlite3_step(select) == SQLITE_ROW else { fatalError(message) }
            let parentKey = sqlite3_column_int64(select, 0)
            sqlite3_reset(select)
            exec("BEGIN IMMEDIATE")
            insertChild(child, title: "joined \(request)", position: -1, parent: parentKey)
            exec("COMMIT")
        }
        sqlite3_finalize(select)
        sqlite3_finalize(child)
    }

    /// Runs the prepared child insert for one child.
    private func insertChild(_ statement: OpaquePointer?, title: String, position: Int, parent: Int64) {
        sqlite3_bind_text(statement, 1, title, -1, transient)
        sqlite3_bind_int64(statement, 2, Int64(position))
        sqlite3_bind_int64(statement, 3, parent)
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(message) }
        sqlite3_reset(statement)
    }

    /// Every parent with its children, read with one join; returns the number of children.
    func fetchFamilies() -> Int {
        let statement = prepare(
            #"SELECT p."_pk", p."name", c."_pk", c."title", c."position" FROM "BenchParent" AS p "#
                + #"LEFT JOIN "BenchChild" AS c ON c."parent" = p."_pk" ORDER BY p."_pk", c."_pk""#)
        defer { sqlite3_finalize(statement) }
        var parents: [RawParent] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let key = sqlite3_column_int64(statement, 0)
            if parents.last?.pk != key {
                parents.append(RawParent(pk: key, name: String(cString: sqlite3_column_text(statement, 1)), children: []))
            }
            guard sqlite3_column_type(statement, 2) != SQLITE_NULL else { continue }
            parents[parents.count - 1].children.append(
                RawChild(
                    pk: sqlite3_column_int64(statement, 2), title: String(cString: sqlite3_column_text(statement, 3)),
                    position: Int(sqlite3_column_int64(statement, 4))))
        }
        return parents.reduce(0) { $0 + $1.children.count }
    }

    func insert(_ count: Int) {
        exec("BEGIN IMMEDIATE")
        let statement = prepare(#"INSERT INTO "BenchItem" ("key", "name", "value", "flag") VALUES (?, ?, ?, ?)"#)
        for i in 0..<count {
            sqlite3_bind_int64(statement, 1, Int64(i))
            sqlite3_bind_text(statement, 2, BenchData.name(i), -1, transient)
            sqlite3_bind_double(statement, 3, BenchData.value(i))
            sqlite3_bind_int64(statement, 4, BenchData.flag(i) ? 1 : 0)
            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(message) }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        exec("COMMIT")
    }

    func fetchAll() -> [RawItem] {
        rows(prepare(#"SELECT "_pk", "key", "name", "value", "flag" FROM "BenchItem""#))
    }

    /// Every row, ordered by value or by key.
    func fetchAll(sortedByValue: Bool) -> [RawItem] {
        let order = sortedByValue ? #""value""# : #""_pk""#
        return rows(prepare(#"SELECT "_pk", "key", "name", "value", "flag" FROM "BenchItem" ORDER BY "# + order))
    }

    /// Renames the row under `pk`, in a transaction of its own.
    func rename(pk: Int64, to name: String) {
        let statement = prepare(#"UPDATE "BenchItem" SET "name" = ? WHERE "_pk" = ?"#)
        sqlite3_bind_text(statement, 1, name, -1, transient)
        sqlite3_bind_int64(statement, 2, pk)
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(message) }
        sqlite3_finalize(statement)
    }

    func fetch(key: Int) -> [RawItem] {
        let statement = pointStatement
        sqlite3_bind_int64(statement, 1, Int64(key))
        defer { sqlite3_reset(statement) }
        return read(statement)
    }

    private lazy var pointStatement = prepare(#"SELECT "_pk", "key", "name", "value", "flag" FROM "BenchItem" WHERE "key" = ?"#)

    func fetchRange(from low: Double, to high: Double, limit: Int) -> [RawItem] {
        let statement = prepare(
            #"SELECT "_pk", "key", "name", "value", "flag" FROM "BenchItem" WHERE "value" >= ? AND "value" < ? ORDER BY "value" LIMIT ?"#)
        sqlite3_bind_double(statement, 1, low)
        sqlite3_bind_double(statement, 2, high)
        sqlite3_bind_int64(statement, 3, Int64(limit))
        return rows(statement)
    }

    /// The first `limit` items by key.
    func fetchFirst(limit: Int) -> [RawItem] {
        let statement = prepare(#"SELECT "_pk", "key", "name", "value", "flag" FROM "BenchItem" ORDER BY "key" LIMIT ?"#)
        sqlite3_bind_int64(statement, 1, Int64(limit))
        return rows(statement)
    }

    func countFlagged() -> Int {
        count(#"SELECT COUNT(*) FROM "BenchItem" WHERE "flag""#)
    }

    func countAll() -> Int {
        count(#"SELECT COUNT(*) FROM "BenchItem""#)
    }

    private func count(_ sql: String) -> Int {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { fatalError(message) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// Reads every row, flips `flag` on each, and writes the rows back by primary key.
    func updateAll() {
        var items = fetchAll()
        for index in items.indices { items[index].flag.toggle() }
        exec("BEGIN IMMEDIATE")
        let statement = prepare(#"UPDATE "BenchItem" SET "flag" = ? WHERE "_pk" = ?"#)
        for item in items {
            sqlite3_bind_int64(statement, 1, item.flag ? 1 : 0)
            sqlite3_bind_int64(statement, 2, item.pk)
            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(message) }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        exec("COMMIT")
    }

    func deleteAll() {
        exec("BEGIN IMMEDIATE")
        exec(#"DELETE FROM "BenchItem""#)
        exec("COMMIT")
    }

    private func rows(_ statement: OpaquePointer?) -> [RawItem] {
        defer { sqlite3_finalize(statement) }
        return read(statement)
    }

    private func read(_ statement: OpaquePointer?) -> [RawItem] {
        var items: [RawItem] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            items.append(
                RawItem(
                    pk: sqlite3_column_int64(statement, 0),
                    key: Int(sqlite3_column_int64(statement, 1)),
                    name: String(cString: sqlite3_column_text(statement, 2)),
                    value: sqlite3_column_double(statement, 3),
                    flag: sqlite3_column_int64(statement, 4) != 0))
        }
        return items
    }

}

/// A raw side's SQLite connection: statements prepared and run by hand, a failure fatal.
protocol RawSQLiteDatabase: AnyObject {
    var db: OpaquePointer? { get }
}

extension RawSQLiteDatabase {
    func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { fatalError(message) }
        return statement
    }

    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(message) }
    }

    var message: String { String(cString: sqlite3_errmsg(db)) }
}

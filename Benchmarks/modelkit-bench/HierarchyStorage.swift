import Foundation

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// How to store a model class hierarchy, measured in raw SQLite before the engine chooses: a
/// `Trip` base with `BusinessTrip` (a `perdiem`) and `PersonalTrip` (a `reason`) subclasses,
/// half the rows base trips and a quarter each subclass.
///
/// - *single*: one table for the hierarchy, a `_type` column and the subclasses' columns, NULL
///   in rows of other classes. No index on `_type`: at a quarter of the rows, scanning the table
///   reads a subclass faster than the index does, and the index slows every insert.
/// - *joined*: a table per class, each subclass row also a `Trip` row under the same key, read
///   back with joins.
///
/// Each case puts *joined* in the engine column and *single* in the raw column, alternating:
/// `hierarchy_fetch_base` reads every trip with its class's columns, `hierarchy_fetch_subclass`
/// the business trips, `hierarchy_insert` writes them all in one transaction.
func hierarchyStorageCases(rows n: Int, options: Options) throws -> [CaseResult] {
    guard options.wants("hierarchy_fetch_base", "hierarchy_fetch_subclass", "hierarchy_insert") else { return [] }
    var results: [CaseResult] = []
    func timed(_ design: HierarchyDesign, _ body: (HierarchyStore) -> Int) throws -> Double {
        try timedRead(of: design, rows: n, body)
    }
    results.appendIfPresent(
        try measureAlternating("hierarchy_fetch_base", options) {
            try timed(.joined) { $0.fetchAll().count }
        } raw: {
            try timed(.single) { $0.fetchAll().count }
        })
    results.appendIfPresent(
        try measureAlternating("hierarchy_fetch_subclass", options) {
            try timed(.joined) { $0.fetchBusinessTrips().count }
        } raw: {
            try timed(.single) { $0.fetchBusinessTrips().count }
        })
    results.appendIfPresent(
        try measureAlternating("hierarchy_insert", options) {
            try withTemporaryDirectory { directory in
                let store = HierarchyStore(path: directory.appendingPathComponent("joined.sqlite").path, design: .joined)
                return seconds { store.insert(n) }
            }
        } raw: {
            try withTemporaryDirectory { directory in
                let store = HierarchyStore(path: directory.appendingPathComponent("single.sqlite").path, design: .single)
                return seconds { store.insert(n) }
            }
        })
    return results
}

/// The seconds `body` takes to read a store of `design` holding `n` trips; it returns how many
/// it read, which must be some.
func timedRead(of design: HierarchyDesign, rows n: Int, _ body: (HierarchyStore) -> Int) throws -> Double {
    try withTemporaryDirectory { directory in
        let store = HierarchyStore(path: directory.appendingPathComponent("\(design).sqlite").path, design: design)
        store.insert(n)
        var found = 0
        let elapsed = seconds { found = body(store) }
        precondition(found > 0, "nothing read")
        return elapsed
    }
}

enum HierarchyDesign { case single, joined }

/// A trip as either design reads it: the base's columns, and the subclass's when the row is one.
struct RawTrip {
    var pk: Int64
    var type: Int
    var name: String
    var nights: Int
    var perdiem: Double?
    var reason: String?
}

final class HierarchyStore: RawSQLiteDatabase {
    private(set) var db: OpaquePointer?
    let design: HierarchyDesign
    private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String, design: HierarchyDesign) {
        self.design = design
        guard sqlite3_open(path, &db) == SQLITE_OK else { fatalError("cannot open \(path)") }
        exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        switch design {
        case .single:
            exec(
                """
                CREATE TABLE "Trip" ("_pk" INTEGER PRIMARY KEY, "_type" INTEGER NOT NULL, "name" TEXT, "nights" INTEGER, "perdiem" REAL, "reason" TEXT);
                """)
        case .joined:
            exec(
                """
                CREATE TABLE "Trip" ("_pk" INTEGER PRIMARY KEY, "_type" INTEGER NOT NULL, "name" TEXT, "nights" INTEGER);
                CREATE TABLE "BusinessTrip" ("_pk" INTEGER PRIMARY KEY REFERENCES "Trip", "perdiem" REAL);
                CREATE TABLE "PersonalTrip" ("_pk" INTEGER PRIMARY KEY REFERENCES "Trip", "reason" TEXT);
                """)
        }
    }

    deinit { sqlite3_close_v2(db) }

    /// Row `i` is a base trip for even `i`, a business trip for `i % 4 == 1`, a personal one
    /// otherwise.
    func insert(_ count: Int) {
        exec("BEGIN IMMEDIATE")
        let trip = prepare(
            design == .single
                ? #"INSERT INTO "Trip" ("_pk", "_type", "name", "nights", "perdiem", "reason") VALUES (?, ?, ?, ?, ?, ?)"#
                : #"INSERT INTO "Trip" ("_pk", "_type", "name", "nights") VALUES (?, ?, ?, ?)"#)
        let business = prepare(#"INSERT INTO "BusinessTrip" ("_pk", "perdiem") VALUES (?, ?)"#, if: design == .joined)
        let personal = prepare(#"INSERT INTO "PersonalTrip" ("_pk", "reason") VALUES (?, ?)"#, if: design == .joined)
        for i in 0..<count {
            let type = i % 2 == 0 ? 0 : (i % 4 == 1 ? 1 : 2)
            let pk = Int64(i + 1)
            sqlite3_bind_int64(trip, 1, pk)
            sqlite3_bind_int64(trip, 2, Int64(type))
            sqlite3_bind_text(trip, 3, "trip \(i)", -1, transient)
            sqlite3_bind_int64(trip, 4, Int64(i % 14))
            if design == .single {
                if type == 1 { sqlite3_bind_double(trip, 5, Double(i % 300)) } else { sqlite3_bind_null(trip, 5) }
                if type == 2 { sqlite3_bind_text(trip, 6, "family", -1, transient) } else { sqlite3_bind_null(trip, 6) }
            }
            step(trip)
            if design == .joined, type == 1 {
                sqlite3_bind_int64(business, 1, pk)
                sqlite3_bind_double(business, 2, Double(i % 300))
                step(business)
            } else if design == .joined, type == 2 {
                sqlite3_bind_int64(personal, 1, pk)
                sqlite3_bind_text(personal, 2, "family", -1, transient)
                step(personal)
            }
        }
        for statement in [trip, business, personal] { sqlite3_finalize(statement) }
        exec("COMMIT")
    }

    func fetchAll() -> [RawTrip] {
        read(
            design == .single
                ? #"SELECT "_pk", "_type", "name", "nights", "perdiem", "reason" FROM "Trip""#
                : #"SELECT t."_pk", t."_type", t."name", t."nights", b."perdiem", p."reason" FROM "Trip" t LEFT JOIN "BusinessTrip" b ON b."_pk" = t."_pk" LEFT JOIN "PersonalTrip" p ON p."_pk" = t."_pk""#)
    }

    func fetchBusinessTrips() -> [RawTrip] {
        read(
            design == .single
                ? #"SELECT "_pk", "_type", "name", "nights", "perdiem", NULL FROM "Trip" WHERE "_type" = 1"#
                : #"SELECT t."_pk", t."_type", t."name", t."nights", b."perdiem", NULL FROM "BusinessTrip" b JOIN "Trip" t ON t."_pk" = b."_pk""#)
    }

    private func read(_ sql: String) -> [RawTrip] {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        var trips: [RawTrip] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            func text(_ column: Int32) -> String? {
                sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : String(cString: sqlite3_column_text(statement, column))
            }
            trips.append(
                RawTrip(
                    pk: sqlite3_column_int64(statement, 0), type: Int(sqlite3_column_int64(statement, 1)), name: text(2)!,
                    nights: Int(sqlite3_column_int64(statement, 3)),
                    perdiem: sqlite3_column_type(statement, 4) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 4),
                    reason: text(5)))
        }
        return trips
    }

    private func prepare(_ sql: String, if condition: Bool) -> OpaquePointer? {
        condition ? prepare(sql) : nil
    }

    private func step(_ statement: OpaquePointer?) {
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(message) }
        sqlite3_reset(statement)
    }
}

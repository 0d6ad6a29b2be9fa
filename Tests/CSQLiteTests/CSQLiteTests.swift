import CSQLite
import Testing

@Suite struct CSQLiteTests {
    /// ModelKit relies on WAL mode and `RETURNING`, which need SQLite 3.35 or later.
    @Test func systemSQLiteIsRecentEnough() {
        #expect(sqlite3_libversion_number() >= 3_035_000)
    }

    @Test func inMemoryDatabaseRunsAStatement() {
        var db: OpaquePointer?
        #expect(sqlite3_open(":memory:", &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (42);", nil, nil, nil) == SQLITE_OK)
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT x FROM t", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(sqlite3_column_int64(statement, 0) == 42)
    }
}

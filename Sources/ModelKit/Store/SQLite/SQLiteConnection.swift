import Foundation
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif

/// SQLite as a backend: one database handle, opened with ModelKit's functions registered.
/// ``ConnectionConfiguration`` applies the store's settings.
final class SQLiteConnection: DatabaseConnection {
    let handle: OpaquePointer

    /// Opens the database at `path` (a file path, or a `file:` URI), creating it if needed; a
    /// locked database is waited for up to `busyTimeout` milliseconds.
    init(path: String, readOnly: Bool, busyTimeout: Int32) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, code: code, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeout)
        SQLiteFunctions.register(on: handle)
    }

    deinit {
        dataVersionStatement = nil
        transactionStatements = []
        // close_v2 waits for statements a caller still holds to be finalized.
        sqlite3_close_v2(handle)
    }

    func prepare(_ sql: String, parameterCount: Int) throws -> any DatabaseStatement {
        try SQLiteStatement(database: handle, sql: sql)
    }

    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: sql) }
    }

    // MARK: Transactions

    func begin(_ sql: String) throws { try runTransactionStatement(sql) }
    func commit() throws { try runTransactionStatement("COMMIT") }
    func rollback() throws { try runTransactionStatement("ROLLBACK") }

    /// Runs `BEGIN …`, `COMMIT` or `ROLLBACK` through a statement prepared once per connection:
    /// `sqlite3_exec` compiles the text on every call, which cost a one-row save about a
    /// twentieth of its instructions.
    private func runTransactionStatement(_ sql: String) throws {
        let statement: SQLiteStatement
        if let kept = transactionStatements.first(where: { $0.sql == sql }) {
            statement = kept
        } else {
            statement = try SQLiteStatement(database: handle, sql: sql)
            transactionStatements.append(statement)
        }
        defer { statement.reset() }
        _ = try statement.step()
    }

    /// The transaction statements run so far: a handful, told apart by their text.
    private var transactionStatements: [SQLiteStatement] = []

    var changes: Int { Int(sqlite3_changes(handle)) }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    var lastInsertedRowID: Int64? { sqlite3_last_insert_rowid(handle) }

    // MARK: Hearing other processes

    /// The pager's data version: changes whenever the database changed, through this connection
    /// or another, as of this connection's last read. One C call, no statement: cheap enough to
    /// check after every read.
    var changeCounter: UInt32? {
        var version: UInt32 = 0
        // A library older than 3.26 does not know the opcode: nil, and the callers ask SQLite.
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return version
    }

    /// `PRAGMA data_version`: changes whenever another connection commits to the database. Its
    /// statement is kept apart from the statement cache and never traced: it is the engine's
    /// bookkeeping, not the caller's query.
    func externalCommitCount() throws -> Int64? {
        let statement = try dataVersionStatement ?? SQLiteStatement(database: handle, sql: "PRAGMA data_version")
        dataVersionStatement = statement
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    private var dataVersionStatement: SQLiteStatement?
}

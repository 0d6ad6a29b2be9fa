import Foundation
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif

/// One database connection, used from one isolation domain: SQLite's, or a driver's
/// (PostgreSQL's). It caches prepared statements by SQL text.
final class Connection {
    enum Backend {
        case sqlite(OpaquePointer)
        case driver(any DriverConnection)
    }

    let backend: Backend
    /// The SQL the connection speaks.
    let dialect: SQLDialect
    /// Open transactions and savepoints, on a driver's connection.
    private var transactionDepth = 0
    /// Prepared statements by SQL text, each with the tick of its last use.
    private var statements: [String: (statement: Statement, lastUse: UInt64)] = [:]
    /// The SQL last looked up and where it is in `statements`: a query run again and again is
    /// matched by comparing its text, without hashing it. Cleared whenever a statement is added
    /// or removed, which moves the others.
    private var last: (sql: String, index: [String: (statement: Statement, lastUse: UInt64)].Index)?
    private var tick: UInt64 = 0
    /// The most statements kept prepared; past it, the least recently used half is finalized.
    static let statementCacheLimit = 256

    /// Called with each SQL text the connection prepares or executes, for tests and debugging.
    var trace: ((String) -> Void)?

    /// Opens the database at `path` (a file path, or a `file:` URI), creating it if needed; a
    /// locked database is waited for up to `busyTimeout` milliseconds. The store's connections
    /// come from ``ConnectionConfiguration``.
    init(path: String, readOnly: Bool = false, busyTimeout: Int32 = ConnectionConfiguration.standard.busyTimeout) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(connection: handle, code: code, sql: nil)
            sqlite3_close_v2(handle)
            throw error
        }
        backend = .sqlite(handle)
        dialect = .sqlite
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeout)
        SQLiteFunctions.register(on: handle)
    }

    /// A driver's connection.
    init(driver connection: any DriverConnection, dialect: SQLDialect) {
        backend = .driver(connection)
        self.dialect = dialect
    }

    deinit {
        last = nil
        statements.removeAll()
        dataVersionStatement = nil
        if case .sqlite(let handle) = backend { sqlite3_close_v2(handle) }
    }

    /// The SQLite handle. Only for the SQLite backend.
    var handle: OpaquePointer {
        guard case .sqlite(let handle) = backend else { preconditionFailure("not a SQLite connection") }
        return handle
    }

    /// The cached prepared statement for `sql`.
    func statement(_ sql: String) throws -> Statement {
        trace?(sql)
        tick &+= 1
        if let last, last.sql == sql {
            statements.values[last.index].lastUse = tick
            return statements.values[last.index].statement
        }
        if let index = statements.index(forKey: sql) {
            statements.values[index].lastUse = tick
            last = (sql, index)
            return statements.values[index].statement
        }
        let statement = try Statement(connection: self, sql: sql)
        if statements.count >= Self.statementCacheLimit { evictStatements() }
        last = nil
        statements[sql] = (statement, tick)
        return statement
    }

    /// Finalizes the least recently used half of the cached statements. A statement a caller is
    /// still stepping stays alive through the caller's reference.
    private func evictStatements() {
        last = nil
        let byAge = statements.sorted { $0.value.lastUse < $1.value.lastUse }
        for (sql, _) in byAge.prefix(statements.count / 2) { statements[sql] = nil }
    }

    /// Whether the database has a table named `name`.
    func hasTable(named name: String) throws -> Bool {
        try !statement(dialect.tableExists).rows([.text(name)]).isEmpty
    }

    /// How many statements are cached, for tests.
    var cachedStatementCount: Int { statements.count }

    /// Executes one or more statements without parameters.
    func execute(_ sql: String) throws {
        trace?(sql)
        switch backend {
        case .sqlite(let handle):
            let code = sqlite3_exec(handle, sql, nil, nil, nil)
            guard code == SQLITE_OK else { throw SQLiteError(connection: handle, code: code, sql: sql) }
        case .driver(let connection):
            try connection.execute(sql)
        }
    }

    /// Whether a transaction is under way.
    var isInTransaction: Bool {
        switch backend {
        case .sqlite(let handle): sqlite3_get_autocommit(handle) == 0
        case .driver: transactionDepth > 0
        }
    }

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws.
    /// Inside a transaction already (a migration stage saving, say), it is a savepoint of it.
    func transaction<R>(_ body: () throws -> R) throws -> R {
        let isNested = isInTransaction
        try execute(isNested ? "SAVEPOINT modelkit" : dialect.beginTransaction)
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try execute(isNested ? "RELEASE modelkit" : "COMMIT")
            return result
        } catch {
            try? execute(isNested ? "ROLLBACK TO modelkit; RELEASE modelkit" : "ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a savepoint of the transaction under way, so that a statement that fails
    /// on purpose (an insert meeting a unique constraint) leaves the transaction usable, as
    /// PostgreSQL's would not be. SQLite needs none.
    func recoverable<R>(if needed: Bool = true, _ body: () throws -> R) throws -> R {
        guard needed, !dialect.survivesFailedStatements else { return try body() }
        try execute("SAVEPOINT modelkit_statement")
        do {
            let result = try body()
            try execute("RELEASE modelkit_statement")
            return result
        } catch {
            try? execute("ROLLBACK TO modelkit_statement; RELEASE modelkit_statement")
            throw error
        }
    }

    /// The key of the row the last `INSERT` made. SQLite only: other dialects return it.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows the last finished `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int {
        switch backend {
        case .sqlite(let handle): Int(sqlite3_changes(handle))
        case .driver(let connection): connection.changes
        }
    }

    /// Announces `payload` on `channel` when the transaction under way commits. Drivers only.
    func notify(_ channel: String, payload: String) throws {
        guard case .driver(let connection) = backend else { return }
        try connection.notify(channel, payload: payload)
    }

    /// The pager's data version: changes whenever the database changed, through this connection
    /// or another, as of this connection's last read. One C call, no statement: cheap enough to
    /// check after every read.
    var fileDataVersion: UInt32 {
        var version: UInt32 = 0
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return version
    }

    /// `PRAGMA data_version`: changes whenever another connection commits to the database.
    /// Checked before every read, so its statement is kept apart from the cache and not traced:
    /// it is the engine's bookkeeping, not the caller's query.
    func dataVersion() throws -> Int64 {
        let statement = try dataVersionStatement ?? Statement(connection: self, sql: "PRAGMA data_version")
        dataVersionStatement = statement
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(at: 0)
    }

    private var dataVersionStatement: Statement?
}

/// One database connection of any backend, used from one isolation domain: it caches prepared
/// statements by SQL text and runs transactions and savepoints. The backend (``SQLiteConnection``,
/// or a driver's) does the database's work.
final class Connection {
    let backend: any DatabaseConnection
    /// The SQL the connection speaks.
    let dialect: SQLDialect
    /// Prepared statements by SQL text, each with the tick of its last use. This and the two
    /// fields below are used only by ``cachedStatement(_:)`` and its eviction, which call nothing
    /// that could reach them again: they are not checked for exclusive access, which cost a
    /// request of `join_unread_list` eleven checks of about 80 instructions.
    @exclusivity(unchecked) private var statements: [String: (statement: Statement, lastUse: UInt64)] = [:]
    /// The SQL of the last statements found by hashing, newest first, and where each is in
    /// `statements`: the few statements a save or a request runs again and again are matched by
    /// comparing their text (the same string, mostly, which compares at once) rather than by
    /// hashing it, which cost a request of `join_unread_list` four hashes of its longest SQL. A
    /// miss compares up to eight texts first. Cleared whenever a statement is added or removed,
    /// which moves the others.
    @exclusivity(unchecked) private var recent: [(sql: String, index: [String: (statement: Statement, lastUse: UInt64)].Index)] = []
    private static let recentLimit = 8
    @exclusivity(unchecked) private var tick: UInt64 = 0
    /// The most statements kept prepared; past it, the least recently used half is finalized.
    static let statementCacheLimit = 256

    /// Called with each SQL text the connection prepares or executes, for tests and debugging.
    var trace: ((String) -> Void)?

    /// A SQLite connection to the database at `path` (a file path, or a `file:` URI), created if
    /// needed; a locked database is waited for up to `busyTimeout` milliseconds. The store's
    /// connections come from ``ConnectionConfiguration``.
    convenience init(path: String, readOnly: Bool = false, busyTimeout: Int32 = ConnectionConfiguration.standard.busyTimeout) throws {
        self.init(try SQLiteConnection(path: path, readOnly: readOnly, busyTimeout: busyTimeout), dialect: .sqlite)
    }

    init(_ backend: any DatabaseConnection, dialect: SQLDialect) {
        self.backend = backend
        self.dialect = dialect
    }

    deinit {
        // Statements go before the backend's connection closes.
        recent.removeAll()
        statements.removeAll()
    }

    /// The cached prepared statement for `sql`.
    func statement(_ sql: String) throws -> Statement {
        trace?(sql)
        return try cachedStatement(sql)
    }

    /// ``statement(_:)``, without tracing it.
    private func cachedStatement(_ sql: String) throws -> Statement {
        tick &+= 1
        for entry in recent where entry.sql == sql {
            statements.values[entry.index].lastUse = tick
            return statements.values[entry.index].statement
        }
        if let index = statements.index(forKey: sql) {
            statements.values[index].lastUse = tick
            if recent.count == Self.recentLimit { recent.removeLast() }
            recent.insert((sql, index), at: 0)
            return statements.values[index].statement
        }
        let statement = try Statement(sql: sql, in: backend, dialect: dialect)
        if statements.count >= Self.statementCacheLimit { evictStatements() }
        recent.removeAll(keepingCapacity: true)
        statements[sql] = (statement, tick)
        return statement
    }

    /// Finalizes the least recently used half of the cached statements. A statement a caller is
    /// still stepping stays alive through the caller's reference.
    private func evictStatements() {
        recent.removeAll()
        let byAge = statements.sorted { $0.value.lastUse < $1.value.lastUse }
        for (sql, _) in byAge.prefix(statements.count / 2) { statements[sql] = nil }
    }

    /// Whether the database has a table named `name`.
    func hasTable(named name: String) throws -> Bool {
        try !statement(dialect.catalog.tableExists).rows([.text(name)]).isEmpty
    }

    /// How many statements are cached, for tests.
    var cachedStatementCount: Int { statements.count }

    /// Executes one or more statements without parameters.
    func execute(_ sql: String) throws {
        trace?(sql)
        try backend.execute(sql)
    }

    /// Whether a transaction is under way.
    var isInTransaction: Bool { backend.isInTransaction }

    /// Runs `body` in a transaction that commits when it returns and rolls back when it throws.
    /// Inside a transaction already (a migration stage saving, say), it is a savepoint of it.
    /// - Parameter begin: the statement that starts it, ``SQLDialect/Spelling/beginTransaction`` unless
    ///   given.
    func transaction<R>(begin: String? = nil, _ body: () throws -> R) throws -> R {
        try transaction(begin: begin) { (try body(), nil) }.result
    }

    /// ``transaction(begin:_:)`` for a write whose last statement `body` returns with its result:
    /// it is sent with the `COMMIT`, in one round trip where the backend can
    /// (``DatabaseConnection/commit(after:values:)``). Returns `body`'s result and the first row
    /// of the last statement.
    func transaction<R>(begin: String? = nil, endingWith body: () throws -> (R, last: SQL?)) throws -> (result: R, lastRow: [SQLValue]?) {
        if isInTransaction {
            try execute("SAVEPOINT modelkit")
            do {
                let (result, last) = try body()
                let row = try last.flatMap { try statement($0.text).rows($0.bindings).first }
                try execute("RELEASE modelkit")
                return (result, row)
            } catch {
                try? execute("ROLLBACK TO modelkit; RELEASE modelkit")
                throw error
            }
        }
        let begin = begin ?? dialect.spelling.beginTransaction
        trace?(begin)
        try backend.begin(begin)
        do {
            let (result, last) = try body()
            guard let last else {
                trace?("COMMIT")
                try backend.commit()
                return (result, nil)
            }
            trace?(last.text + "; COMMIT")
            return (result, try backend.commit(after: cachedStatement(last.text).backendStatement, values: last.bindings))
        } catch {
            trace?("ROLLBACK")
            try? backend.rollback()
            throw error
        }
    }

    /// Runs `body` in a savepoint of the transaction under way, so that a statement that fails
    /// on purpose (an insert meeting a unique constraint) leaves the transaction usable, as
    /// PostgreSQL's would not be. SQLite needs none.
    func recoverable<R>(if needed: Bool = true, _ body: () throws -> R) throws -> R {
        guard needed, dialect.failedStatements == .abortTheTransaction else { return try body() }
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

    /// The key of the row the last `INSERT` made, where the backend keeps it; nil where the
    /// insert returns it.
    var lastInsertedRowID: Int64? { backend.lastInsertedRowID }

    /// The number of rows the last finished `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { backend.changes }

    /// See ``DatabaseConnection/changeCounter``.
    var changeCounter: UInt32? { backend.changeCounter }

    /// See ``DatabaseConnection/externalCommitCount()``.
    func externalCommitCount() throws -> Int64? { try backend.externalCommitCount() }
}

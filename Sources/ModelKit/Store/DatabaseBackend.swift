import Foundation

/// A database backend: connections, the dialect its SQL is written in, whether it takes writes
/// from many connections at once, and how other instances' commits are heard. ModelKit itself
/// writes every statement. SQLite is one, built in (``SQLiteDriver``); a separate module
/// provides another (`ModelKitPostgres`).
package protocol DatabaseDriver: Sendable {
    /// The SQL the database speaks.
    var dialect: SQLDialect { get }
    /// The database, for the process-wide access registry and for messages: never a password.
    var location: String { get }
    /// The database as a URL for ``ModelKitError`` messages: never with its password.
    var displayURL: URL { get }
    /// How many idle connections the process keeps for the next contexts. Past it, a context's
    /// connection is closed when the context goes, and the next context connects anew.
    var pooledConnections: Int { get }
    /// Whether the database lives in the process's memory only: no other process reaches it.
    var isInMemory: Bool { get }
    /// Whether the database takes writes from many connections at once (PostgreSQL), so that
    /// contexts save through their own connections; else saves take turns at one writer (SQLite).
    var writesConcurrently: Bool { get }
    /// A new connection.
    func connect() throws -> any DatabaseConnection
    /// Sets a store's database up through its writer, before ModelKit checks and migrates it.
    func prepareStore(through writer: any DatabaseConnection) throws
    /// Starts delivering the payloads sent on `channel` (``DriverListener/announce(_:)``), until
    /// the listener is released; nil where other instances' commits are heard otherwise
    /// (SQLite's data version).
    func listen(on channel: String, _ receive: @escaping @Sendable (String) -> Void) throws -> (any DriverListener)?
}

extension DatabaseDriver {
    package var isInMemory: Bool { false }
    package func prepareStore(through writer: any DatabaseConnection) throws {}
}

/// One connection of a backend, SQLite's or a driver's, used from one isolation domain at a time.
/// ``Connection`` caches its statements and runs its transactions; nothing outside the backend
/// knows which one it is.
package protocol DatabaseConnection: AnyObject {
    /// Prepares `sql`, written in the backend's dialect (its parameters spelled as
    /// ``SQLDialect/spellingParameters(of:)`` spells them), with `parameterCount` parameters.
    func prepare(_ sql: String, parameterCount: Int) throws -> any DatabaseStatement
    /// Runs statements without parameters.
    func execute(_ sql: String) throws
    /// Starts a transaction with `sql` (``SQLDialect/Spelling/beginTransaction`` or the like). A backend
    /// may hold it back and send it with the transaction's first statement, saving a round trip.
    func begin(_ sql: String) throws
    /// The rows the last finished `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { get }
    /// Whether a transaction is under way.
    var isInTransaction: Bool { get }
    /// The key of the row the last `INSERT` made, where the database keeps it (SQLite); nil where
    /// an insert returns its key (``SQLDialect/KeyAssignment/insertReturnsKey``).
    var lastInsertedRowID: Int64? { get }
    /// Commits the transaction under way.
    func commit() throws
    /// Runs `statement` (one of this connection's), bound to `values`, as the transaction's last
    /// statement and commits, in one round trip where the backend can; returns its first row.
    func commit(after statement: any DatabaseStatement, values: [SQLValue]) throws -> [SQLValue]?
    /// Rolls back the transaction under way.
    func rollback() throws
    /// A number that changes whenever the database changes, through this connection or another,
    /// as of this connection's last read, read without running a statement; nil where the
    /// backend cannot tell.
    var changeCounter: UInt32? { get }
    /// A number that changes whenever another connection commits; nil where other writers'
    /// commits are announced instead (``DatabaseDriver/listen(on:_:)``).
    func externalCommitCount() throws -> Int64?
}

extension DatabaseConnection {
    package var lastInsertedRowID: Int64? { nil }
    package var changeCounter: UInt32? { nil }
    package func externalCommitCount() throws -> Int64? { nil }
    package func begin(_ sql: String) throws { try execute(sql) }
    package func commit() throws { try execute("COMMIT") }
    package func rollback() throws { try execute("ROLLBACK") }

    package func commit(after statement: any DatabaseStatement, values: [SQLValue]) throws -> [SQLValue]? {
        try commitAfterRunning(statement, values: values)
    }

    /// Two round trips: the statement, then the commit.
    package func commitAfterRunning(_ statement: any DatabaseStatement, values: [SQLValue]) throws -> [SQLValue]? {
        try statement.bind(values)
        defer { statement.reset() }
        let row = try statement.step() ? (0..<statement.columnCount).map { statement.column($0) } : nil
        try commit()
        return row
    }
}

/// A prepared statement of a ``DatabaseConnection``.
package protocol DatabaseStatement: AnyObject {
    /// Clears the previous bindings and binds `values` to the parameters, in order.
    func bind(_ values: [SQLValue]) throws
    /// Clears the previous bindings and binds `value(i)` to parameter `i + 1`, for each of
    /// `count`: a backend that binds one value at a time needs no array.
    func bind(count: Int, _ value: (Int) throws -> SQLValue) throws
    /// Runs the statement on the first call after a bind or reset, then moves to the next row;
    /// false when there is none.
    func step() throws -> Bool
    /// Ends the current run, so the statement can be bound and stepped again.
    func reset()
    var columnCount: Int32 { get }
    /// The value in `index` of the current row, in the form SQLite would give it.
    func column(_ index: Int32) -> SQLValue
    /// The integer in `index` of the current row; 0 when it holds no integer.
    func int64(at index: Int32) -> Int64
}

extension DatabaseStatement {
    package func bind(count: Int, _ value: (Int) throws -> SQLValue) throws {
        try bind((0..<count).map(value))
    }

    package func int64(at index: Int32) -> Int64 {
        guard case .integer(let value) = column(index) else { return 0 }
        return value
    }
}

/// Keeps a ``DatabaseDriver/listen(on:_:)`` delivering until released, and announces on its
/// channel.
package protocol DriverListener: AnyObject, Sendable {
    /// Sends `payload` to every listener of the channel, this one included, from the listener's
    /// own connection: queued, in order, without waiting. A payload the database refuses is
    /// dropped; one queued while the connection is down goes once it is back.
    func announce(_ payload: String)
}

/// What a database's errors tell ModelKit, whichever database it is.
package protocol DatabaseFailure: Error {
    /// A unique constraint or index refused a row.
    var isUniqueViolation: Bool { get }
    /// Any constraint refused a row.
    var isConstraintViolation: Bool { get }
    /// The database ended the transaction to let a concurrent one go on (a deadlock, or a
    /// serialization failure): nothing was written, and running it again can succeed.
    var isTransactionRetryable: Bool { get }
    /// The error as ModelKit reports it, with this one as its underlying error.
    var databaseError: DatabaseError { get }
}

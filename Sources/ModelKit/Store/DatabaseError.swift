/// What a store's database refused or failed at, as ModelKit reports it whichever database the
/// store is: the same codes from SQLite and PostgreSQL, so that code catching them runs on both.
/// The database's own error is kept as ``underlying`` (a ``SQLiteError``, or ModelKitPostgres's
/// `PostgresError`), for what only it says: SQLite's extended result code, PostgreSQL's SQLSTATE.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly. A struct rather than an enum, so that codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        /// A unique constraint or index refused a row.
        public static let uniqueViolation = Code(description: "uniqueViolation")
        /// Another constraint (not null, check, foreign key) refused a row.
        public static let constraintViolation = Code(description: "constraintViolation")
        /// The database ended the transaction to let a concurrent one go on (a deadlock, or a
        /// serialization failure). Nothing was written; a save tries three times before it
        /// reports it.
        public static let transactionConflict = Code(description: "transactionConflict")
        /// The database could not be opened or reached, or refused the connection.
        public static let cannotConnect = Code(description: "cannotConnect")
        /// Another connection held the database's lock past the busy timeout (SQLite).
        public static let busy = Code(description: "busy")
        /// The file is not a database, or is damaged beyond reading (SQLite).
        public static let notADatabase = Code(description: "notADatabase")
        /// A string or data value is longer than the database can store.
        public static let valueTooLarge = Code(description: "valueTooLarge")
        /// A value the database cannot store at all: a string with a NUL character (U+0000) in
        /// PostgreSQL, whose text cannot hold one (SQLite keeps it). A save reports it before the
        /// row is written, naming the model and property in ``DatabaseError/message``, and writes
        /// nothing; remove the character, or keep such values as `Data`.
        public static let unsupportedValue = Code(description: "unsupportedValue")
        /// The connection dropped (a server restart, say). The operation failed and nothing it
        /// did was committed; the next one reconnects.
        public static let connectionLost = Code(description: "connectionLost")
        /// The database holds a value it cannot take, or a statement it cannot run, or failed in
        /// another way its message says.
        public static let other = Code(description: "other")
    }

    public let code: Code
    /// The database's message.
    public let message: String
    /// The SQL being run, if any. Bound values are never included.
    public let sql: String?
    /// The database's own error; for a value ModelKit refuses before the database sees it
    /// (``Code/unsupportedValue``), one that says which database, property and value.
    public let underlying: any Error & Sendable

    package init(code: Code, message: String, sql: String?, underlying: any Error & Sendable) {
        self.code = code
        self.message = message
        self.sql = sql
        self.underlying = underlying
    }

    /// The database's own error's description: which database, its code, its message and the
    /// statement.
    public var description: String { "\(underlying)" }
}

extension DatabaseError: DatabaseFailure {
    package var isUniqueViolation: Bool { code == .uniqueViolation }
    package var isConstraintViolation: Bool { code == .uniqueViolation || code == .constraintViolation }
    package var isTransactionRetryable: Bool { code == .transactionConflict }
    package var databaseError: DatabaseError { self }
}

#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif

/// An error reported by SQLite, with the statement that caused it.
///
/// Its description reads like `SQLite error 19: UNIQUE constraint failed: Item.code while executing
/// "INSERT INTO …"`.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The primary SQLite result code (`SQLITE_CONSTRAINT` is 19, `SQLITE_CORRUPT` 11, …).
    public let code: Int32
    /// The extended result code, which says more (`SQLITE_CONSTRAINT_UNIQUE` is 2067, …).
    public let extendedCode: Int32
    /// SQLite's message.
    public let message: String
    /// The SQL being executed, if any. Bound values are never included.
    public let sql: String?

    /// Reads like `SQLite error 19: UNIQUE constraint failed: … while executing "INSERT …"`. A
    /// statement longer than 300 characters is cut, so an error stays readable in a log.
    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql {
            let shown = sql.count > 300 ? "\(sql.prefix(300))… (\(sql.count) characters)" : sql
            text += " while executing \"\(shown)\""
        }
        return text
    }

    init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
    }

    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        self.init(code: code, extendedCode: extended, message: message, sql: sql)
    }

    /// The file is not a database, or is damaged.
    var isCorruption: Bool { code == SQLITE_NOTADB || code == SQLITE_CORRUPT }

    /// Another connection held the database lock past the busy timeout.
    var isBusy: Bool { code == SQLITE_BUSY }

    /// A string or blob is longer than SQLite's length limit.
    var isTooBig: Bool { code == SQLITE_TOOBIG }

    /// A constraint (unique, not null, check, trigger) refused the change.
    package var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// SQLite has one writer at a time: no transaction is ended for another.
    package var isTransactionRetryable: Bool { false }

    /// A unique index or a primary key refused the change. SQLite reports the two with their own
    /// extended codes (SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY, C macros Swift
    /// cannot import); PostgreSQL with one SQLSTATE, which callers rely on.
    package var isUniqueViolation: Bool {
        extendedCode == SQLITE_CONSTRAINT | (8 << 8) || extendedCode == SQLITE_CONSTRAINT | (6 << 8)
    }

    /// The file or its directory cannot be opened or written.
    var isAccessFailure: Bool { code == SQLITE_READONLY || code == SQLITE_CANTOPEN }
}

extension SQLiteError: DatabaseFailure {
    package var databaseError: DatabaseError {
        let kind: DatabaseError.Code =
            if isUniqueViolation { .uniqueViolation }
            else if isConstraintViolation { .constraintViolation }
            else if isCorruption { .notADatabase }
            else if isBusy { .busy }
            else if isTooBig { .valueTooLarge }
            else if isAccessFailure { .cannotConnect }
            else { .other }
        return DatabaseError(code: kind, message: message, sql: sql, underlying: self)
    }
}

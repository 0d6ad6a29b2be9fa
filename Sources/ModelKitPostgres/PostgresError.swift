import Foundation
import ModelKit

/// An error from PostgreSQL or from reaching it, with the statement that caused it. It never
/// holds a password or bound values.
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached, or refused the connection, within the connect
        /// timeout.
        case cannotConnect
        /// The connection dropped (a server restart, say). The operation failed; the next one
        /// reconnects.
        case connectionLost
        /// The server refused a statement; ``PostgresError/sqlState`` says why.
        case statementFailed
        /// A value PostgreSQL cannot store, such as a string containing NUL.
        case valueNotStorable
    }

    public let kind: Kind
    /// PostgreSQL's five-character SQLSTATE (`23505` for a unique violation), if the server sent one.
    public let sqlState: String?
    /// The server's or libpq's message.
    public let message: String
    /// The SQL being executed, if any.
    public let sql: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, sql: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        self.sql = sql
    }

    /// Reads like `PostgreSQL error 23505: duplicate key value violates unique constraint … while
    /// executing "INSERT …"`.
    public var description: String {
        var text = switch kind {
        case .cannotConnect: "Cannot connect to PostgreSQL: \(message)"
        case .connectionLost: "The connection to PostgreSQL was lost: \(message). The next operation reconnects"
        case .statementFailed: "PostgreSQL error \(sqlState ?? "?"): \(message)"
        case .valueNotStorable: "PostgreSQL cannot store the value: \(message)"
        }
        if let sql {
            let shown = sql.count > 300 ? "\(sql.prefix(300))… (\(sql.count) characters)" : sql
            text += " while executing \"\(shown)\""
        }
        return text
    }
}

extension PostgresError: DatabaseFailure {
    package var isUniqueViolation: Bool { sqlState == "23505" }
    package var isConstraintViolation: Bool { sqlState?.hasPrefix("23") ?? false }
    /// `40P01` (deadlock detected) and `40001` (serialization failure).
    package var isTransactionRetryable: Bool { sqlState == "40P01" || sqlState == "40001" }

    package var databaseError: DatabaseError {
        let code: DatabaseError.Code =
            switch kind {
            case .cannotConnect: .cannotConnect
            case .connectionLost: .connectionLost
            case .valueNotStorable: .unsupportedValue
            case .statementFailed:
                isUniqueViolation ? .uniqueViolation : isConstraintViolation ? .constraintViolation : isTransactionRetryable ? .transactionConflict : .other
            }
        return DatabaseError(code: code, message: message, sql: sql, underlying: self)
    }
}

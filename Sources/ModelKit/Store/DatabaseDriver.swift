import Foundation

/// A database other than the built-in SQLite, as a separate module (`ModelKitPostgres`)
/// provides it: connections, the dialect its SQL is written in, and how other instances'
/// commits are heard. ModelKit itself writes every statement.
package protocol DatabaseDriver: Sendable {
    /// The SQL the database speaks.
    var dialect: SQLDialect { get }
    /// The database, for the process-wide access registry and for messages: never a password.
    var location: String { get }
    /// The database as a URL for ``ModelKitError`` messages: never with its password.
    var displayURL: URL { get }
    /// A new connection.
    func connect() throws -> any DriverConnection
    /// Starts delivering the payloads other connections send on `channel` with
    /// ``DriverConnection/notify(_:payload:)``, until the listener is released.
    func listen(on channel: String, _ receive: @escaping @Sendable (String) -> Void) throws -> any DriverListener
}

/// One connection of a ``DatabaseDriver``, used from one isolation domain at a time.
package protocol DriverConnection: AnyObject {
    /// Prepares `sql`, written in the driver's dialect (its parameters spelled as
    /// ``SQLDialect/spellingParameters(of:)`` spells them), with `parameterCount` parameters.
    func prepare(_ sql: String, parameterCount: Int) throws -> any DriverStatement
    /// Runs statements without parameters.
    func execute(_ sql: String) throws
    /// The rows the last finished `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { get }
    /// Announces `payload` to the listeners of `channel` when the transaction under way commits.
    func notify(_ channel: String, payload: String) throws
}

/// A prepared statement of a ``DriverConnection``.
package protocol DriverStatement: AnyObject {
    func bind(_ values: [SQLValue])
    /// Runs the statement on the first call after a bind or reset, then moves to the next row;
    /// false when there is none.
    func step() throws -> Bool
    func reset()
    var columnCount: Int32 { get }
    /// The value in `index` of the current row, in the form SQLite would give it.
    func column(_ index: Int32) -> SQLValue
}

/// Keeps a ``DatabaseDriver/listen(on:_:)`` delivering until released.
package protocol DriverListener: AnyObject, Sendable {}

/// What a database's errors tell ModelKit, whichever database it is.
package protocol DatabaseFailure: Error {
    /// A unique constraint or index refused a row.
    var isUniqueViolation: Bool { get }
    /// Any constraint refused a row.
    var isConstraintViolation: Bool { get }
}

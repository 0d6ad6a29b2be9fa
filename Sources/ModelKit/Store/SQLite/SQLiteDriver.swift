import Foundation

/// SQLite as a backend on the same terms as a driver's database, built in: connections to the
/// store's file (or to an in-memory database) with ``ConnectionConfiguration``'s settings. It
/// takes one writer at a time, and other processes' commits are heard through the writer's data
/// version, not announced.
struct SQLiteDriver: DatabaseDriver {
    /// The file's path, or a `file:` URI for an in-memory database.
    let path: String
    let isInMemory: Bool
    let displayURL: URL

    var dialect: SQLDialect { .sqlite }
    var location: String { path }
    var pooledConnections: Int { ConnectionConfiguration.standard.idleReaderLimit }
    var writesConcurrently: Bool { false }

    func connect() throws -> any DatabaseConnection {
        try ConnectionConfiguration.standard.connect(path, isInMemory: isInMemory)
    }

    func prepareStore(through writer: any DatabaseConnection) throws {
        try ConnectionConfiguration.standard.prepareStore(through: writer, isInMemory: isInMemory)
    }

    /// Nothing to hear: other processes' commits move the writer's data version.
    func listen(on channel: String, _ receive: @escaping @Sendable (String) -> Void) throws -> (any DriverListener)? { nil }
}

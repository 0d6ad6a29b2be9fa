/// What the engine needs of the configurations of its own databases, beside SwiftData's
/// ``DataStoreConfiguration``: ``ModelConfiguration`` (SQLite) and ModelKit's database modules'
/// (`PostgresConfiguration`). A configuration that is not one is a custom store's, opened through
/// its ``DataStoreConfiguration/Store``.
package protocol EngineStoreConfiguration: DataStoreConfiguration, Sendable {
    /// Whether contexts may save.
    var allowsSave: Bool { get }
    /// The database's driver, for databases other than SQLite; nil for SQLite.
    var engineDriver: (any DatabaseDriver)? { get }
}

extension ModelConfiguration: EngineStoreConfiguration {
    /// The store SwiftData names for this configuration: the SQLite store, as a ``DataStore``.
    public typealias Store = DefaultStore

    /// None: the store is SQLite's.
    package var engineDriver: (any DatabaseDriver)? { nil }
}

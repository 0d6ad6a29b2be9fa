/// Where a container keeps its models, as in SwiftData: ``ModelConfiguration`` for a SQLite file
/// or memory, or another database a ModelKit module provides, such as `PostgresConfiguration` in
/// `ModelKitPostgres`.
///
/// ```swift
/// let local = try ModelContainer(for: Trip.self, configurations: ModelConfiguration("Trips"))
/// let shared = try ModelContainer(for: Trip.self, configurations: PostgresConfiguration(url: databaseURL))
/// ```
public protocol DataStoreConfiguration: Hashable, Sendable {
    /// The configuration's name.
    var name: String { get }
    /// The model types the configuration stores, if it names them.
    var schema: Schema? { get }
    /// Whether contexts may save.
    var allowsSave: Bool { get }
    /// The database's driver, for configurations of databases other than SQLite. Provided by
    /// ModelKit's database modules; not for direct use.
    var _driver: DataStoreDriver? { get }
    /// Checks the configuration can describe a store, as SwiftData's requirement does.
    func validate() throws
}

extension DataStoreConfiguration {
    /// Nothing to check, unless the configuration says otherwise.
    public func validate() throws {}
}

/// The driver of a database other than SQLite, as a ``DataStoreConfiguration`` hands it to the
/// container. Made by ModelKit's database modules; not for direct use.
public struct DataStoreDriver: Sendable {
    package let driver: any DatabaseDriver

    package init(_ driver: any DatabaseDriver) {
        self.driver = driver
    }
}

extension ModelConfiguration: DataStoreConfiguration {
    /// None: the store is SQLite's.
    public var _driver: DataStoreDriver? { nil }
}

/// The SQLite store of a ``ModelConfiguration``, as a ``DataStore``: what SwiftData's
/// `ModelConfiguration.Store` names. A container opens a `ModelConfiguration`'s store directly;
/// this type is for code that drives stores through the `DataStore` protocol, or wraps one.
///
/// ```swift
/// let store = try DefaultStore(ModelConfiguration(schema: Schema([Trip.self]), isStoredInMemoryOnly: true), migrationPlan: nil)
/// ```
public final class DefaultStore: DataStore, DataStoreBatching, HistoryProviding {
    public typealias Configuration = ModelConfiguration
    public typealias Snapshot = DefaultSnapshot
    public typealias HistoryType = DefaultHistoryTransaction
    /// The type of the store's history tokens.
    public typealias TokenType = DefaultHistoryToken

    /// The configuration's name.
    public let name: String
    /// The configuration the store was opened with.
    public final let configuration: ModelConfiguration
    private let server: EngineStoreServer

    /// Opens the store of `configuration`, which names its schema.
    /// - Throws: ``ModelKitError/invalidConfiguration(_:reason:)`` for a configuration without a
    ///   schema; a ``SwiftDataError`` when the store cannot be opened, as a container throws.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        name = configuration.name
        server = try EngineStoreServer(configuration, migrationPlan: migrationPlan)
    }

    /// The store's identifier, as its models' identifiers hold it.
    public final var identifier: String { server.identifier }
    /// The model types the store holds.
    public var schema: Schema { server.container.schema }
    /// The type of the store's history transactions.
    public static var historyType: DefaultHistoryTransaction.Type { DefaultHistoryTransaction.self }

    /// The snapshots of the models the request describes; the predicate, sort and paging run in
    /// SQLite.
    /// - Throws: the store's errors.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try server.fetch(request)
    }

    /// The number of models the request describes, counted in SQLite.
    /// - Throws: the store's errors.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int { try server.fetchCount(request) }

    /// The identifiers of the models the request describes.
    /// - Throws: the store's errors.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try server.fetchIdentifiers(request)
    }

    /// Saves the request's snapshots in one transaction.
    /// - Throws: the store's errors; nothing is saved then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try server.save(request)
    }

    /// Deletes every model in the store.
    /// - Throws: the store's errors.
    public func erase() throws { try server.erase() }

    /// Deletes the models the request describes, in SQLite.
    /// - Throws: the store's errors.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws { try server.delete(request) }

    /// Nothing to set up: each request reads the newest committed state.
    public func initializeState(for editingState: EditingState) {}

    /// Nothing to let go of.
    public func invalidateState(for editingState: EditingState) {}

    /// None: each request reads the store.
    /// - Throws: nothing.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        server.cachedSnapshots(for: persistentIdentifiers)
    }

    /// The store's history transactions the descriptor describes.
    /// - Throws: as ``ModelContext/fetchHistory(_:)``.
    public final func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try server.fetchHistory(descriptor)
    }

    /// Deletes the store's history transactions the descriptor describes.
    /// - Throws: as ``ModelContext/deleteHistory(_:)``.
    public final func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try server.deleteHistory(descriptor)
    }
}

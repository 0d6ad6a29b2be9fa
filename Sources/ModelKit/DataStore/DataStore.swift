import Foundation

/// A store a ``ModelContainer`` reads and writes models through without knowing how it keeps
/// them, as in SwiftData: a JSON file, a web service, another database.
///
/// A container opens the store of each configuration whose ``DataStoreConfiguration/Store`` is
/// yours with ``init(_:migrationPlan:)``, and its contexts call it: ``fetch(_:)`` for every read,
/// ``save(_:)`` for every save, as ``DefaultSnapshot`` values. What a store does not do itself
/// (filtering, sorting, paging: throw ``DataStoreError/preferInMemoryFilter`` or
/// ``DataStoreError/preferInMemorySort``), the context does in memory. See <doc:CustomDataStores>.
///
/// ```swift
/// final class JSONStore: DataStore {
///     typealias Configuration = JSONStoreConfiguration
///     typealias Snapshot = DefaultSnapshot
///     var configuration: JSONStoreConfiguration
///     var name: String
///     var schema: Schema
///     var identifier: String
///     init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws { … }
///     func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> { … }
///     func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> { … }
/// }
/// ```
public protocol DataStore: AnyObject {
    /// The configuration type that describes stores of this type.
    associatedtype Configuration: DataStoreConfiguration
    /// The type of the snapshots the store reads and writes.
    associatedtype Snapshot: DataStoreSnapshot

    /// Opens the store `configuration` describes.
    /// - Throws: whatever keeps the store from opening; the container throws it as
    ///   ``SwiftDataError/loadIssueModelContainer``.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// The configuration the store was opened with.
    var configuration: Configuration { get }
    /// The store's identifier: the ``PersistentIdentifier/storeIdentifier`` of its models.
    var identifier: String { get }
    /// The model types the store holds.
    var schema: Schema { get }

    /// The snapshots of the models `request` describes.
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   to have the context filter or sort every model of the type itself, or the store's own
    ///   error, which reaches the caller of the fetch.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// The number of models `request` describes. By default, the count of ``fetch(_:)``'s.
    /// - Throws: as ``fetch(_:)``.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// The identifiers of the models `request` describes. By default, ``fetch(_:)``'s.
    /// - Throws: as ``fetch(_:)``.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Saves a context's inserted, updated and deleted models, and tells the context the
    /// permanent identifiers of the inserted ones.
    /// - Throws: the store's error: the context keeps its changes, and the save throws it.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Deletes every model in the store. By default, throws ``DataStoreError/unsupportedFeature``.
    /// - Throws: the store's error.
    func erase() throws
    /// Called when a context starts using the store with its editing state.
    func initializeState(for editingState: EditingState)
    /// The snapshots the store holds in memory for `persistentIdentifiers`, if any: a context
    /// asks before fetching a model it needs by identifier (a relationship's target). By
    /// default, none.
    /// - Throws: the store's error.
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot]
    /// Called when a context with the editing state goes away.
    func invalidateState(for editingState: EditingState)
}

extension DataStore {
    /// The count of the snapshots ``fetch(_:)`` returns.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetch(request).fetchedSnapshots.count
    }

    /// The identifiers of the snapshots ``fetch(_:)`` returns.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    /// Throws ``DataStoreError/unsupportedFeature``: a store that can erase itself says how.
    public func erase() throws { throw DataStoreError.unsupportedFeature }

    /// Nothing to set up.
    public func initializeState(for editingState: EditingState) {}

    /// No snapshots in memory.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot] {
        [:]
    }

    /// Nothing to let go of.
    public func invalidateState(for editingState: EditingState) {}
}

/// A ``DataStore`` that deletes many models at once, without a context loading them: a
/// context's ``ModelContext/delete(model:where:includeSubclasses:)`` calls it. A store that is
/// not one has its models deleted by a fetch and a save.
public protocol DataStoreBatching: DataStore {
    /// Deletes the models `request` describes.
    /// - Throws: the store's error, which reaches the caller of the delete.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

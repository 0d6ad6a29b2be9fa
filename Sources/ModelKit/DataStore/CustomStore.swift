import Foundation
import Synchronization

/// A custom ``DataStore`` as a container holds it: the store, its identifiers' keys here, and the
/// snapshots it last handed out, behind one lock, since contexts of any thread call it.
final class CustomStore: @unchecked Sendable {
    /// The store's calls, with its types erased.
    private let calls: any CustomStoreCalls
    /// The store's identifier.
    let identifier: String
    /// The keys the store's models have in this container.
    let keys = StoreKeys()
    private let lock = NSLock()
    /// The newest snapshot of each model the store handed out or took, by key.
    private var snapshots: [Int64: DefaultSnapshot] = [:]
    /// How each entity's snapshots become rows, made on first use.
    private var rows: [ObjectIdentifier: SnapshotRows] = [:]

    init(calls: any CustomStoreCalls) {
        self.calls = calls
        identifier = calls.identifier
    }

    /// Opens the store `configuration` describes.
    /// - Throws: ``ModelKitError/invalidConfiguration(_:reason:)`` for a store whose snapshots are
    ///   not ``DefaultSnapshot``s, or the store's own error.
    static func open<C: DataStoreConfiguration>(_ configuration: C, migrationPlan: (any SchemaMigrationPlan.Type)?) throws -> CustomStore {
        guard C.Store.Snapshot.self == DefaultSnapshot.self else {
            throw ModelKitError.invalidConfiguration(
                configuration.name, reason: "\(C.Store.self)'s snapshots are \(C.Store.Snapshot.self): ModelKit makes DefaultSnapshot values only")
        }
        try configuration.validate()
        let store = try C.Store(configuration, migrationPlan: migrationPlan)
        return CustomStore(calls: StoreCalls(store: store))
    }

    /// Runs `body` with the store, one caller at a time.
    func withStore<R>(_ body: (any CustomStoreCalls) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(calls)
    }

    /// How `entity`'s snapshots become rows.
    func rows(of entity: Schema.Entity) -> SnapshotRows {
        lock.lock()
        defer { lock.unlock() }
        if let rows = rows[ObjectIdentifier(entity)] { return rows }
        let made = SnapshotRows(entity: entity)
        rows[ObjectIdentifier(entity)] = made
        return made
    }

    /// Remembers `snapshots` as their models' newest.
    func remember(_ snapshots: [DefaultSnapshot], keys: [Int64]) {
        lock.lock()
        defer { lock.unlock() }
        for (snapshot, key) in zip(snapshots, keys) { self.snapshots[key] = snapshot }
    }

    /// Forgets the snapshots of deleted models.
    func forget(_ keys: [Int64]) {
        lock.lock()
        defer { lock.unlock() }
        for key in keys { snapshots[key] = nil }
    }

    /// The newest snapshot of the model with `key`, if one was handed out.
    func snapshot(for key: Int64) -> DefaultSnapshot? {
        lock.lock()
        defer { lock.unlock() }
        return snapshots[key]
    }
}

/// A ``DataStore``'s calls in ``DefaultSnapshot`` terms, for a store whose snapshots are those.
protocol CustomStoreCalls: AnyObject {
    var identifier: String { get }
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot>
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot>
    /// Deletes in the store when it batches deletes; false when it does not.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws -> Bool
    func erase() throws
    func initializeState(for editingState: EditingState)
    func invalidateState(for editingState: EditingState)
    func cachedSnapshots(for identifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot]
    /// The store's history, or nil when it provides none of type `T`.
    func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]?
    /// Deletes the store's history; false when it provides none of type `T`.
    func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool
}

/// ``CustomStoreCalls`` of a store of type `S`.
private final class StoreCalls<S: DataStore>: CustomStoreCalls {
    let store: S

    init(store: S) { self.store = store }

    var identifier: String { store.identifier }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        // `open` checked that `S.Snapshot` is `DefaultSnapshot`: the result is the same type, and
        // a cast of its arrays would copy them element by element.
        unsafeBitCast(try store.fetch(request), to: DataStoreFetchResult<T, DefaultSnapshot>.self)
    }

    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int { try store.fetchCount(request) }

    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try store.fetchIdentifiers(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let typed = DataStoreSaveChangesRequest<S.Snapshot>(
            editingState: request.editingState, inserted: request.inserted as! [S.Snapshot], updated: request.updated as! [S.Snapshot],
            deleted: request.deleted as! [S.Snapshot])
        let result = try store.save(typed)
        return DataStoreSaveChangesResult(
            for: result.storeIdentifier, remappedIdentifiers: result.remappedIdentifiers,
            snapshotsToReregister: result.snapshotsToReregister as! [PersistentIdentifier: DefaultSnapshot], historyToken: result.historyToken)
    }

    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws -> Bool {
        guard let batching = store as? any DataStoreBatching else { return false }
        func delete<B: DataStoreBatching>(_ store: B) throws { try store.delete(request) }
        try delete(batching)
        return true
    }

    func erase() throws { try store.erase() }
    func initializeState(for editingState: EditingState) { store.initializeState(for: editingState) }
    func invalidateState(for editingState: EditingState) { store.invalidateState(for: editingState) }

    func cachedSnapshots(for identifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        unsafeBitCast(try store.cachedSnapshots(for: identifiers, editingState: editingState), to: [PersistentIdentifier: DefaultSnapshot].self)
    }

    func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]? {
        guard let provider = store as? any HistoryProviding else { return nil }
        func fetch<P: HistoryProviding>(_ provider: P) throws -> [T]? {
            guard let typed = descriptor as? HistoryDescriptor<P.HistoryType> else { return nil }
            return try provider.fetchHistory(typed) as? [T]
        }
        return try fetch(provider)
    }

    func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool {
        guard let provider = store as? any HistoryProviding else { return false }
        func delete<P: HistoryProviding>(_ provider: P) throws -> Bool {
            guard let typed = descriptor as? HistoryDescriptor<P.HistoryType> else { return false }
            try provider.deleteHistory(typed)
            return true
        }
        return try delete(provider)
    }
}

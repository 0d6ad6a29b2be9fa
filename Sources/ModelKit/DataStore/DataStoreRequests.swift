import Foundation

/// What a context asks a ``DataStore`` to fetch.
public struct DataStoreFetchRequest<T: PersistentModel>: Sendable {
    /// The fetch: its predicate, sort, offset and limit. A store may leave the predicate or the
    /// sort to the context by throwing ``DataStoreError/preferInMemoryFilter`` or
    /// ``DataStoreError/preferInMemorySort``.
    public let descriptor: FetchDescriptor<T>
    /// The asking context's editing state.
    public let editingState: EditingState

    package init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        self.descriptor = descriptor
        self.editingState = editingState
    }
}

/// What a ``DataStore`` answers a fetch with.
public struct DataStoreFetchResult<ModelType: PersistentModel, SnapshotType: DataStoreSnapshot>: Sendable {
    /// The request's descriptor.
    public let descriptor: FetchDescriptor<ModelType>
    /// The snapshots of the models fetched, in the descriptor's order.
    public let fetchedSnapshots: [SnapshotType]
    /// Snapshots of related models the store read with them, by identifier: the context uses
    /// them for relationships instead of asking again.
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    /// A result of `fetchedSnapshots`, and of `relatedSnapshots` of related models.
    public init(descriptor: FetchDescriptor<ModelType>, fetchedSnapshots: [SnapshotType], relatedSnapshots: [PersistentIdentifier: SnapshotType] = [:]) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}

/// What a context asks a ``DataStore`` to save: snapshots of its inserted, updated and deleted
/// models. Inserted models have temporary identifiers, which the store replaces with its own
/// (see ``DataStoreSaveChangesResult/remappedIdentifiers``).
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The saving context's editing state.
    public let editingState: EditingState
    /// The models inserted since the last save.
    public let inserted: [SnapshotType]
    /// The stored models changed since the last save.
    public let updated: [SnapshotType]
    /// The stored models deleted since the last save.
    public let deleted: [SnapshotType]

    package init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

/// What a ``DataStore`` answers a save with.
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The store's identifier.
    public let storeIdentifier: String
    /// The permanent identifier of each inserted model, by its temporary one.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Snapshots the store changed while saving, by the identifiers the request gave them: the
    /// saving context's models take their values.
    public let snapshotsToReregister: [PersistentIdentifier: T]
    /// The history token of the save, for a store that keeps history.
    public let historyToken: (any HistoryToken)?

    /// The result of a save in the store `storeIdentifier`.
    public init(
        for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
        snapshotsToReregister: [PersistentIdentifier: T] = [:]
    ) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
        self.historyToken = nil
    }

    /// The result of a save in the store `storeIdentifier`, with its history token.
    public init(
        for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
        snapshotsToReregister: [PersistentIdentifier: T] = [:], historyToken: (any HistoryToken)?
    ) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
        self.historyToken = historyToken
    }
}

/// What a context asks a ``DataStoreBatching`` store to delete.
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: Sendable {
    /// The deleting context's editing state.
    public let editingState: EditingState
    /// Whether models of subclasses of `T` are deleted too.
    public let includeSubclasses: Bool
    /// The models to delete; nil for every model of the type.
    public let predicate: Predicate<T>?

    package init(editingState: EditingState, includeSubclasses: Bool, predicate: Predicate<T>?) {
        self.editingState = editingState
        self.includeSubclasses = includeSubclasses
        self.predicate = predicate
    }
}

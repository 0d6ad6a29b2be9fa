import Foundation

/// Batch deletes and history of custom stores.
extension ModelContext {
    /// Deletes the models of a custom store `predicate` matches: through the store's
    /// ``DataStoreBatching/delete(_:)`` when it batches deletes, else (or when it throws a
    /// ``DataStoreError`` other than ``DataStoreError/invalidPredicate``) as one save of their
    /// deletions. The context's instances of them leave it, and ``didSave`` reports them.
    /// - Throws: the store's error, or a predicate's evaluation error.
    func customDelete<T: PersistentModel>(
        _ type: T.Type, where predicate: Predicate<T>?, includeSubclasses: Bool, entity: Schema.Entity, in custom: CustomStore
    ) throws {
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = false
        // Those the context has, and their identifiers, before the store forgets them.
        let doomed = try customFetch(descriptor, entity: entity, in: custom)
        let identifiers = doomed.map(\.persistentModelID)
        let request = DataStoreBatchDeleteRequest(editingState: editingState, includeSubclasses: includeSubclasses, predicate: predicate)
        let batched: Bool
        do {
            batched = try custom.withStore { try $0.delete(request) }
        } catch let error as DataStoreError where error != .invalidPredicate {
            batched = false  // the store leaves this delete to the context
        }
        if !batched {
            let deleted = identifiers.map { DefaultSnapshot(persistentIdentifier: $0, values: [:]) }
            let state = editingState
            _ = try custom.withStore {
                try $0.save(DataStoreSaveChangesRequest(editingState: state, inserted: [], updated: [], deleted: deleted))
            }
        }
        custom.forget(doomed.compactMap { $0._$modelKit.rowID })
        for model in doomed { detach(deletedRowOf: model) }
        postDidSave(inserted: [], updated: [], deleted: identifiers)
    }

    /// The history of the container's custom stores that provide history of type `T`; nil
    /// when none does.
    /// - Throws: a store's error.
    func customHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]? {
        var found: [T]?
        for link in links {
            guard let custom = link.store.custom, let transactions = try custom.withStore({ try $0.fetchHistory(descriptor) }) else { continue }
            found = (found ?? []) + transactions
        }
        return found
    }

    /// Deletes the history of type `T` of the container's custom stores that provide it;
    /// false when none does.
    /// - Throws: a store's error.
    func deleteCustomHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> Bool {
        var deleted = false
        for link in links {
            guard let custom = link.store.custom else { continue }
            if try custom.withStore({ try $0.deleteHistory(descriptor) }) { deleted = true }
        }
        return deleted
    }
}

import Foundation

/// Saves to custom stores.
extension ModelContext {
    /// Saves one custom store's batch: one ``DataStore/save(_:)`` of the inserted, updated and
    /// deleted models' snapshots, then the inserted models take the store's identifiers, and
    /// the models whose snapshots the store gives back to reregister take their values. Related
    /// models are named by identifier, so a snapshot naming a model inserted in the same save
    /// holds its temporary identifier: the store is sent those snapshots again, as updates, with
    /// the permanent identifiers.
    ///
    /// If the store throws, nothing here changed: the context keeps its changes, and the error
    /// reaches the caller of ``save()``.
    /// - Throws: the store's error; ``ModelKitError/invalidIdentifier(_:reason:)`` when the store
    ///   gave an inserted model no permanent identifier.
    func writeCustom(_ batch: SaveBatch, to custom: CustomStore) throws {
        let state = editingState
        let inserted = batch.inserted.map { model in
            let entity = model._$modelKit.entity!
            return snapshot(of: model, entity: entity, identifier: model.persistentModelID)
        }
        let updated = batch.changed.map { snapshot(of: $0, entity: $0._$modelKit.entity!, identifier: $0.persistentModelID) }
        let deleted = batch.deleted.filter { $0._$modelKit.rowID != nil }.map {
            DefaultSnapshot(persistentIdentifier: $0.persistentModelID, values: [:])
        }
        let result = try custom.withStore {
            try $0.save(DataStoreSaveChangesRequest(editingState: state, inserted: inserted, updated: updated, deleted: deleted))
        }
        let remapped = result.remappedIdentifiers
        var permanent: [PersistentIdentifier] = []
        permanent.reserveCapacity(inserted.count)
        for snapshot in inserted {
            guard let identifier = remapped[snapshot.persistentIdentifier], !identifier.isTemporary else {
                throw ModelKitError.invalidIdentifier(
                    snapshot.persistentIdentifier.description,
                    reason: "\(custom.identifier)'s save gave the inserted model no permanent identifier in remappedIdentifiers")
            }
            permanent.append(identifier)
        }
        let saved = zip(inserted, permanent).map { $0.copy(persistentIdentifier: $1, remappedIdentifiers: remapped) }
            + updated.map { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: remapped) }
        // Those that named a model by its temporary identifier, restated with the permanent one.
        let restated = zip(inserted + updated, saved).compactMap { original, remappedSnapshot in
            original.values.values.contains { Self.holdsTemporary($0, of: remapped) } ? remappedSnapshot : nil
        }
        if !restated.isEmpty {
            _ = try custom.withStore {
                try $0.save(DataStoreSaveChangesRequest(editingState: state, inserted: [], updated: restated, deleted: []))
            }
        }
        let keys = custom.keys.keys(for: permanent)
        for (model, key) in zip(batch.inserted, keys) { model._$modelKit.rowID = key }
        custom.remember(saved, keys: custom.keys.keys(for: saved.map(\.persistentIdentifier)))
        custom.forget(batch.deleted.compactMap { $0._$modelKit.rowID })
        try reregister(result.snapshotsToReregister, remapped: remapped, models: batch.inserted + batch.changed, in: custom)
    }

    /// Takes in the snapshots the store changed while saving: they become the models' newest,
    /// and the saved models among them take their values.
    private func reregister(
        _ snapshots: [PersistentIdentifier: DefaultSnapshot], remapped: [PersistentIdentifier: PersistentIdentifier],
        models: [any PersistentModel], in custom: CustomStore
    ) throws {
        guard !snapshots.isEmpty else { return }
        var byKey: [Int64: DefaultSnapshot] = [:]
        for (identifier, snapshot) in snapshots {
            let permanent = remapped[identifier] ?? identifier
            let key = custom.keys.key(for: permanent)
            byKey[key] = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped)
        }
        custom.remember(Array(byKey.values), keys: Array(byKey.keys))
        for model in models {
            let storage = model._$modelKit
            guard let key = storage.rowID, let snapshot = byKey[key], let entity = storage.entity else { continue }
            // The save's own changes are in the snapshot: the model takes the store's values.
            storage.changedColumns.removeAll()
            try refresh(model, from: row(of: snapshot, entity: entity, key: key, in: custom))
        }
    }

    /// Whether a snapshot value names a model by a temporary identifier the save remapped.
    private static func holdsTemporary(_ value: any Codable, of remapped: [PersistentIdentifier: PersistentIdentifier]) -> Bool {
        switch value {
        case let identifier as PersistentIdentifier: return identifier.isTemporary && remapped[identifier] != nil
        case let identifier as PersistentIdentifier?: return identifier.map { $0.isTemporary && remapped[$0] != nil } ?? false
        case let identifiers as [PersistentIdentifier]: return identifiers.contains { $0.isTemporary && remapped[$0] != nil }
        default: return false
        }
    }
}

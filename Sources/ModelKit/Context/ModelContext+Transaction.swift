extension ModelContext {
    /// Runs `block`, then saves, as one unit: either everything the block changed is saved in one
    /// transaction, or nothing is written and the context is as it was before the call.
    ///
    /// When the block or the save throws, the inserts, changes and deletes made since the call are
    /// undone in the context; unsaved changes made before it stay pending.
    ///
    /// ```swift
    /// try context.transaction {
    ///     let order = Order(number: 42)
    ///     context.insert(order)
    ///     try reserveStock(for: order)   // throws: the order is not inserted
    /// }
    /// ```
    ///
    /// In a container with several stores, the changes must all be in one store, since stores
    /// commit separately: changes in several throw ``ModelKitError/invalidConfiguration(_:reason:)``
    /// and are undone.
    /// - Throws: what `block` throws, or what ``save()`` throws.
    public func transaction(block: () throws -> Void) throws {
        let snapshot = PendingSnapshot(of: self)
        do {
            try block()
            try save(inOneTransaction: true)
        } catch {
            restore(snapshot)
            throw error
        }
    }

    /// Puts the context's unsaved changes back as `snapshot` recorded them. Models inserted since
    /// leave the context, models deleted since come back, models changed since read their rows
    /// again, and the models the snapshot recorded get its values back.
    func restore(_ snapshot: PendingSnapshot) {
        for model in inserted.models where !snapshot.inserted.contains(model) { release(unsaved: model) }
        for model in deleted.models where !snapshot.deleted.contains(model) {
            model._$modelKit.isDeleted = false
        }
        // Deleting a changed model moves it from the changed to the deleted models.
        let changedSince = (changed.models + deleted.models).filter { model in
            !snapshot.changed.contains(model) && !snapshot.deleted.contains(model) && !model._$modelKit.changedColumns.isEmpty
        }
        for model in changedSince {
            model._$modelKit.changedColumns.removeAll()
            do {
                try reload(model)
            } catch {
                ModelKitDebugLog.error("could not undo the changes to a \(type(of: model)): \(error)")
            }
        }
        for state in snapshot.states { state.restore() }
        for model in snapshot.inserted.models {
            let storage = model._$modelKit
            if let entity = storage.entity { storage.enter(handle(for: storage, of: entity)) }
            storage.isInserted = true
            storage.isDeleted = false
        }
        for model in snapshot.deleted.models { model._$modelKit.isDeleted = true }
        inserted = snapshot.inserted
        changed = snapshot.changed
        deleted = snapshot.deleted
        deferredListChanges = snapshot.deferredListChanges
    }
}

/// A context's unsaved changes at one moment, with the property values of the inserted and
/// changed models, so that a failed ``ModelContext/transaction(block:)`` can put them back.
struct PendingSnapshot {
    let inserted: PendingModels
    let changed: PendingModels
    let deleted: PendingModels
    let deferredListChanges: DeferredListChanges
    let states: [RecordedModel]

    init(of context: ModelContext) {
        inserted = context.inserted
        changed = context.changed
        deleted = context.deleted
        deferredListChanges = context.deferredListChanges
        states = (inserted.models + changed.models).map(RecordedModel.init)
    }
}

/// One model's loaded property values and change record.
struct RecordedModel {
    let model: any PersistentModel
    /// Each property's value, nil where the property was not loaded.
    let values: [Any?]
    let changedColumns: ChangedColumns
    let faults: ModelStorage.Faults?

    init(_ model: any PersistentModel) {
        self.model = model
        let storage = model._$modelKit
        faults = storage.faults
        changedColumns = storage.changedColumns
        let faults = self.faults
        func read<M: PersistentModel>(_ model: M) -> [Any?] {
            M.schemaMetadata.enumerated().map { index, property in
                faults?[index] != nil ? nil : model[keyPath: property.keyPath]
            }
        }
        values = read(model)
    }

    /// Writes the recorded values back, without tracking them as changes.
    func restore() {
        let storage = model._$modelKit
        guard let entity = storage.entity else { return }
        storage.loading {
            for (index, value) in values.enumerated() {
                if let value {
                    entity.columns[index].assign(value, to: model)
                } else if let relationship = entity.relationshipsByColumn[index] {
                    entity.columns[index].assign(relationship.access.placeholder, to: model)
                }
            }
        }
        storage.faults = faults
        storage.changedColumns = changedColumns
    }
}

import Foundation

extension ModelContext {
    /// Records how to set `model`'s property back to its current value, before a write changes
    /// it. The undo sets it through the property's setter, which records the redo.
    func registerUndo<Model: PersistentModel, Value>(of model: Model, keyPath: KeyPath<Model, Value>) {
        guard let undoManager, undoSuppression == 0, let writable = keyPath as? ReferenceWritableKeyPath<Model, Value> else {
            return
        }
        let old = model[keyPath: keyPath]
        register(with: undoManager) { _ in model[keyPath: writable] = old }
    }

    /// Records that undoing the insert of `model` deletes it, and takes it out of the inverses
    /// of its relationships, which the insert linked; redoing it links them again.
    func registerUndo(ofInsert model: some PersistentModel) {
        guard let undoManager, undoSuppression == 0 else { return }
        register(with: undoManager) { context in
            let links = context.unlinkInverses(of: model)
            guard let undoManager = context.undoManager else { return context.delete(model) }
            context.register(with: undoManager) { _ in
                for (relationship, related) in links {
                    for other in related { relationship.inverse!.link(model, to: other) }
                }
            }
            context.delete(model)
        }
    }

    /// Takes `model` out of the inverses of its loaded relationships, and returns what each held.
    private func unlinkInverses(of model: some PersistentModel) -> [(RelationshipInfo, [any PersistentModel])] {
        let storage = model._$modelKit
        guard let entity = storage.entity else { return [] }
        let links = entity.orderedRelationships.filter { $0.inverse != nil && !storage.hasFault(at: $0.column) }
            .map { ($0, $0.access.read(model)) }
        for (relationship, related) in links {
            for other in related { relationship.inverse!.unlink(model, from: other) }
        }
        return links
    }

    /// Records that undoing the delete of `model` brings it back: the pending delete is dropped,
    /// or, once a save deleted its row, the model is inserted again as a new row with its values.
    func registerUndo(ofDelete model: some PersistentModel) {
        guard let undoManager, undoSuppression == 0 else { return }
        register(with: undoManager) { context in context.restore(deleted: model) }
    }

    /// Registers `handler` to undo a change of the context. Foundation's undo manager is
    /// main-actor isolated on Apple platforms: there a change is recorded when it is made on the
    /// main thread, as the main context's are, and not otherwise.
    private func register(with undoManager: UndoManager, _ handler: @escaping (ModelContext) -> Void) {
        #if canImport(Darwin)
        guard Thread.isMainThread else { return }
        MainActor.assumeIsolated { undoManager.registerUndo(withTarget: self, handler: handler) }
        #else
        undoManager.registerUndo(withTarget: self, handler: handler)
        #endif
    }

    private func restore(deleted model: some PersistentModel) {
        let storage = model._$modelKit
        if storage.context == nil, storage.rowID != nil {
            // Its row is gone: the model comes back as a new one. Relationships it never
            // loaded stay empty.
            storage.rowID = nil
            storage.faults = nil
        }
        insert(model)
    }
}

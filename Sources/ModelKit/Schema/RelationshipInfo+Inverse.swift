extension RelationshipInfo {
    /// Keeps the inverse side in step after `model`'s side changed from `before` to `after`.
    func maintainInverse(of model: any PersistentModel, before: [any PersistentModel], after: [any PersistentModel]) {
        guard let inverse else { return }
        let storage = model._$modelKit
        let wasMaintaining = storage.isMaintainingInverse
        storage.isMaintainingInverse = true
        defer { storage.isMaintainingInverse = wasMaintaining }
        for target in before where !after.contains(where: { $0 === target }) {
            inverse.unlink(model, from: target)
        }
        for target in after where !before.contains(where: { $0 === target }) {
            inverse.link(model, to: target)
        }
    }

    /// Makes this relationship, on `owner`, include `model`. Setting it runs the owner's own
    /// maintenance, which detaches the owner from whatever it pointed at before. Nothing to do
    /// when the owner is the model whose change this follows from: it holds `model` already.
    func link(_ model: any PersistentModel, to owner: any PersistentModel) {
        guard !owner._$modelKit.isMaintainingInverse, !access.holds(owner, model) else { return }
        access.assign(owner, isToMany ? access.read(owner) + [model] : [model])
    }

    /// Makes this relationship, on `owner`, leave out `model`.
    func unlink(_ model: any PersistentModel, from owner: any PersistentModel) {
        guard access.holds(owner, model) else { return }
        access.assign(owner, access.read(owner).filter { $0 !== model })
    }
}

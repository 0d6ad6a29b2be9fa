extension RelationshipInfo {
    /// Keeps the inverse side in step after `model`'s side changed from `before` to `after`.
    func maintainInverse(of model: any PersistentModel, before: [any PersistentModel], after: [any PersistentModel]) {
        guard let inverse else { return }
        for target in before where !after.contains(where: { $0 === target }) {
            inverse.unlink(model, from: target)
        }
        for target in after where !before.contains(where: { $0 === target }) {
            inverse.link(model, to: target)
        }
    }

    /// Makes this relationship, on `owner`, include `model`. Setting it runs the owner's own
    /// maintenance, which detaches the owner from whatever it pointed at before.
    func link(_ model: any PersistentModel, to owner: any PersistentModel) {
        let current = access.read(owner)
        guard !current.contains(where: { $0 === model }) else { return }
        access.assign(owner, isToMany ? current + [model] : [model])
    }

    /// Makes this relationship, on `owner`, leave out `model`.
    func unlink(_ model: any PersistentModel, from owner: any PersistentModel) {
        let current = access.read(owner)
        guard current.contains(where: { $0 === model }) else { return }
        access.assign(owner, current.filter { $0 !== model })
    }
}

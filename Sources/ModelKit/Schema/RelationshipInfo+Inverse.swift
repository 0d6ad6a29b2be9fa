extension RelationshipInfo {
    /// Keeps the inverse side in step after `model`'s side changed from `before` to `after`.
    func maintainInverse(of model: any PersistentModel, before: [any PersistentModel], after: [any PersistentModel]) {
        guard let inverse else { return }
        guard after.count >= before.count, zip(before, after).allSatisfy({ $0 === $1 }) else {
            return relink(model, before: before, after: after)
        }
        // Appends, the common change of a to-many: only the new tail needs linking.
        model._$modelKit.maintainingInverse {
            for target in after[before.count...] { inverse.link(model, to: target) }
        }
    }

    /// Keeps the inverse side in step after `model`'s to-many changed from `before` to `after`.
    /// Appends, the common change, are told by comparing the references' bits.
    func maintainInverse<Target: PersistentModel>(of model: any PersistentModel, from before: [Target], to after: [Target]) {
        guard let inverse else { return }
        guard after.count >= before.count, after.startsWithIdentical(before) else {
            return relink(model, before: before, after: after)
        }
        // Through a buffer: iterating a slice in this unspecialized code costs a few witness
        // calls per element.
        model._$modelKit.maintainingInverse {
            after.withUnsafeBufferPointer { targets in
                for index in before.count..<targets.count { inverse.link(model, to: targets[index]) }
            }
        }
    }

    /// Keeps the inverse side in step after `model`'s to-one changed from `before` to `after`.
    func maintainInverse(
        of model: any PersistentModel, replacing before: (any PersistentModel)?, with after: (any PersistentModel)?
    ) {
        guard let inverse, before !== after else { return }
        model._$modelKit.maintainingInverse {
            if let before { inverse.unlink(model, from: before) }
            if let after { inverse.link(model, to: after, isNew: true) }
        }
    }

    /// Keeps the inverse side in step after a change of `model`'s side that is not an append:
    /// the models `after` lacks let go of `model`, and those `before` lacked take it.
    private func relink(_ model: any PersistentModel, before: [any PersistentModel], after: [any PersistentModel]) {
        guard let inverse else { return }
        model._$modelKit.maintainingInverse {
            for target in Self.missing(from: after, in: before) { inverse.unlink(model, from: target) }
            for target in Self.missing(from: before, in: after) { inverse.link(model, to: target) }
        }
    }

    /// The models of `models` that `others` lacks, in order. Short lists are compared directly;
    /// long ones through a set, so that appending to a large to-many costs its length, not its
    /// square.
    private static func missing(from others: [any PersistentModel], in models: [any PersistentModel]) -> [any PersistentModel] {
        guard models.count * others.count > 256 else {
            return models.filter { model in !others.contains { $0 === model } }
        }
        let present = Set(others.map(ObjectIdentifier.init))
        return models.filter { !present.contains(ObjectIdentifier($0)) }
    }

    /// Makes this relationship, on `owner`, include `model`; a to-one lets go of the model it held,
    /// whose inverse follows. Nothing to do when the owner is the model whose change this follows
    /// from: it holds `model` already.
    ///
    /// `isNew` says that `model`'s side of the inverse did not hold `owner` before its
    /// change. Then, while both models' relationships agree (see
    /// ``ModelStorage/relationshipsAgree``), `owner` cannot hold `model` either, and a loaded
    /// to-many is not searched for it: children joining a parent one by one cost each join, not
    /// the length of the parent's list.
    func link(_ model: any PersistentModel, to owner: any PersistentModel, isNew: Bool = false) {
        let storage = owner._$modelKit
        guard !storage.isMaintainingInverse, !deferredChange(of: model, joins: true, owner: owner) else { return }
        let absent = isNew && storage.relationshipsAgree && model._$modelKit.relationshipsAgree
            && !storage.hasFault(at: column)
        guard absent || !access.holds(owner, model) else { return }
        include(model, true, in: owner)
    }

    /// Makes this relationship, on `owner`, leave out `model`. A required to-one is never emptied.
    func unlink(_ model: any PersistentModel, from owner: any PersistentModel) {
        guard !deferredChange(of: model, joins: false, owner: owner), access.holds(owner, model) else { return }
        include(model, false, in: owner)
    }

    /// Leaves the change to `owner`'s context when this is a to-many that `owner` has not loaded
    /// (see ``DeferredListChanges``), and `model` is in that context or none: `model`'s side
    /// already changed, and the list takes the change when it loads. True when deferred.
    private func deferredChange(of model: any PersistentModel, joins: Bool, owner: any PersistentModel) -> Bool {
        guard isToMany, inverse != nil else { return false }
        let ownerStorage = owner._$modelKit
        guard ownerStorage.hasFault(at: column), let context = ownerStorage.context else { return false }
        let modelContext = model._$modelKit.context
        guard modelContext == nil || modelContext === context else { return false }
        context.deferChange(of: self, of: owner, joining: model, joins)
        return true
    }

    /// Makes this relationship on `owner` include `model` (a to-many appends it, a to-one holds it
    /// in place of what it held) or leave it out, in place, and then keeps the inverses as the
    /// setter's upkeep would: `model`'s, and for a to-one, the one of the model it held before.
    private func include(_ model: any PersistentModel, _ isIncluded: Bool, in owner: any PersistentModel) {
        let replaced = isToMany || !isIncluded ? nil : access.read(owner).first
        guard access.include(owner, model, isIncluded), let inverse else { return }
        owner._$modelKit.maintainingInverse {
            if let replaced, replaced !== model { inverse.unlink(owner, from: replaced) }
            if isIncluded { inverse.link(owner, to: model) } else { inverse.unlink(owner, from: model) }
        }
    }
}

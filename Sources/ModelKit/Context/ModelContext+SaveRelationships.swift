extension ModelContext {
    /// Before a save writes anything: inserts the new models that inserted or changed models refer
    /// to, and applies the delete rules of deleted models.
    /// - Throws: ``ModelKitError/deleteDenied(entity:relationship:)`` or
    ///   ``ModelKitError/requiredRelationshipWouldBeNil(entity:relationship:)``, before anything is
    ///   written. ModelKitSync calls it before a save, to judge models as the save will leave them.
    package func prepareRelationshipsForSave() throws {
        // A model of an entity without relationships reaches no other: a save of those alone
        // (changes to many rows of one table) need not visit each.
        guard !deferredListChanges.isEmpty || [inserted.types, changed.types].joined().contains(where: mayRelate) else {
            return try applyDeleteRules()
        }
        // First in, first out: the related models are inserted in the order their owners were,
        // so their rows take keys (and foreign keys) in that order, appended to the tables and
        // indexes rather than added at their start, which splits pages.
        var queue = inserted.models + changed.models
        var next = 0
        while next < queue.count {
            let model = queue[next]
            next += 1
            var related = loadedRelatedModels(of: model)
            // Most saves have no waiting list changes: no lookup per model then.
            if !deferredListChanges.isEmpty { related += deferredListChanges.joinedTargets(of: model) }
            for related in related {
                let storage = related._$modelKit
                guard storage.context == nil, !storage.isDeleted else { continue }
                insert(related)
                queue.append(related)
            }
        }
        try applyDeleteRules()
    }

    /// Whether a model of `type` may hold related models: its entity has relationships (or it is
    /// not in the schema, which the save reports).
    private func mayRelate(_ type: any PersistentModel.Type) -> Bool {
        container.schema.entity(for: type)?.relationshipsByColumn.isEmpty != true
    }

    /// Follows each deleted model's relationships: `.deny` throws if anything is related,
    /// `.cascade` deletes the related models (and follows theirs), `.nullify` removes the deleted
    /// model from the related models' inverse. Denials, and nullifications of a required to-one,
    /// are found before anything changes.
    private func applyDeleteRules() throws {
        var worklist = deleted.models
        var doomed = Set(worklist.map { ObjectIdentifier($0) })
        var cascaded: [any PersistentModel] = []
        var nullified: [(relationship: RelationshipInfo, model: any PersistentModel, related: [any PersistentModel])] = []
        while let model = worklist.popLast() {
            guard let entity = model._$modelKit.entity else { continue }
            for relationship in entity.orderedRelationships {
                let related = relationship.access.read(model).filter { !doomed.contains(ObjectIdentifier($0)) }
                switch relationship.deleteRule {
                case .deny where !related.isEmpty:
                    throw ModelKitError.deleteDenied(entity: entity.name, relationship: relationship.name)
                case .cascade:
                    for target in related where doomed.insert(ObjectIdentifier(target)).inserted {
                        worklist.append(target)
                        cascaded.append(target)
                    }
                case .nullify:
                    nullified.append((relationship, model, related))
                default:
                    break
                }
            }
        }
        for (relationship, _, related) in nullified {
            guard let inverse = relationship.inverse, case .toOne(_, isOptional: false) = inverse.shape,
                related.contains(where: { !doomed.contains(ObjectIdentifier($0)) })
            else { continue }
            throw ModelKitError.requiredRelationshipWouldBeNil(entity: relationship.target.name, relationship: inverse.name)
        }
        for model in cascaded { delete(model) }
        for (relationship, model, related) in nullified {
            guard let inverse = relationship.inverse else { continue }
            for target in related where !doomed.contains(ObjectIdentifier(target)) {
                inverse.unlink(model, from: target)
            }
        }
    }
}

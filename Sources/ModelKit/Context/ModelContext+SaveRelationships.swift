extension ModelContext {
    /// Before a save writes anything: inserts the new models that inserted or changed models refer
    /// to, and applies the delete rules of deleted models.
    /// - Throws: ``ModelKitError/deleteDenied(entity:relationship:)`` or
    ///   ``ModelKitError/requiredRelationshipWouldBeNil(entity:relationship:)``, before anything is
    ///   written.
    func prepareRelationshipsForSave() throws {
        // First in, first out: the related models are inserted in the order their owners were,
        // so their rows take keys (and foreign keys) in that order, appended to the tables and
        // indexes rather than added at their start, which splits pages.
        var queue = inserted.models + changed.models
        var next = 0
        while next < queue.count {
            let model = queue[next]
            next += 1
            for related in loadedRelatedModels(of: model) + deferredListChanges.joinedTargets(of: model) {
                let storage = related._$modelKit
                guard storage.context == nil, !storage.isDeleted else { continue }
                insert(related)
                queue.append(related)
            }
        }
        try applyDeleteRules()
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

    /// Adds to `references` the to-ones of a just-inserted model whose targets had no key yet, so
    /// were written NULL. Nothing to do, and no list made, for a model without relationships.
    func collectReferencesToUnsavedModels(of model: any PersistentModel, into references: inout [(any PersistentModel, RelationshipInfo)]) {
        guard let entity = model._$modelKit.entity, !entity.relationshipsByColumn.isEmpty else { return }
        for relationship in entity.orderedRelationships where !relationship.isToMany {
            guard model._$modelKit.faults?[relationship.column] == nil,
                let target = relationship.access.read(model).first, target._$modelKit.rowID == nil
            else { continue }
            references.append((model, relationship))
        }
    }

    /// Writes the to-one references left NULL at insert, once every inserted model has its key.
    func writeForeignKeys(_ references: [(any PersistentModel, RelationshipInfo)], with writer: RowWriter) throws {
        for (model, relationship) in references {
            guard let entity = model._$modelKit.entity, let rowID = model._$modelKit.rowID else { continue }
            try writer.setReference(of: entity, rowID: rowID, column: relationship.column, to: model._modelKitValue(at: relationship.column))
        }
    }

    /// Writes the join-table links of the given models' to-many relationships that are new or
    /// changed, link by link: those a loaded list gained or lost against the stored ones, and for
    /// a list not loaded, the changes made through its inverse meanwhile (see
    /// ``DeferredListChanges``). Only the owning side of a many-to-many writes; the other side
    /// mirrors it in memory.
    func writeJoinTables(of models: [any PersistentModel], with writer: RowWriter) throws {
        for model in models {
            let storage = model._$modelKit
            guard let entity = storage.entity, let rowID = storage.rowID else { continue }
            for relationship in entity.orderedRelationships {
                guard case .joinTable(let name, "owner", let targetColumn) = relationship.storage,
                    storage.isInserted || storage.changedColumns.contains(relationship.column)
                else { continue }
                var linked: Set<Int64> = []
                var unlinked: Set<Int64> = []
                if storage.faults?[relationship.column] != nil {
                    let outcome = deferredListChanges.outcome(of: model, list: relationship.column)
                    linked = Set(outcome.joined.compactMap { $0._$modelKit.rowID })
                    unlinked = Set(outcome.left.compactMap { $0._$modelKit.rowID })
                } else {
                    let current = Set(relationship.access.read(model).compactMap { $0._$modelKit.rowID })
                    if storage.isInserted {
                        // An upsert may have given the new model a stored row: its links are the list's.
                        try writer.unlinkAll(in: name, owner: rowID)
                        linked = current
                    } else {
                        let stored = try writer.linkedTargets(in: name, targetColumn: targetColumn, owner: rowID)
                        linked = current.subtracting(stored)
                        unlinked = stored.subtracting(current)
                    }
                }
                try writer.relink(in: name, targetColumn: targetColumn, owner: rowID, linking: linked, unlinking: unlinked)
            }
        }
    }
}

import Foundation

extension ModelContext {
    /// Loads a relationship left as a fault, without tracking it as a change. A failure leaves
    /// the relationship empty and goes to `ModelKitDebugLog`; the model stays usable.
    func load(_ fault: ModelStorage.Fault, of relationship: RelationshipInfo, into model: any PersistentModel) {
        do {
            assign(loaded: try relatedModels(fault, of: relationship, owner: model), to: relationship, of: model)
        } catch {
            ModelKitDebugLog.log("could not load \(relationship.name) of \(type(of: model)): \(error)")
        }
    }

    private func relatedModels(
        _ fault: ModelStorage.Fault, of relationship: RelationshipInfo, owner: any PersistentModel
    ) throws -> [any PersistentModel] {
        switch fault {
        case .toOne(let rowID):
            return try model(of: relationship.target, rowID: rowID).map { [$0] } ?? []
        case .toMany:
            if let entity = owner._$modelKit.entity, let custom = customStore(of: entity) {
                return try customToMany(relationship, of: owner, in: custom)
            }
            guard let rowID = owner._$modelKit.rowID else { return [] }
            return try models(of: relationship.target, sql: relatedSelect(relationship, keys: [rowID]))
        case .unfetched:
            return []  // only ever at an attribute's column
        }
    }

    /// The models of `entity` that `sql` selects, in its order, reusing registered instances.
    func models(of entity: Schema.Entity, sql: SQL) throws -> [any PersistentModel] {
        func load<T: PersistentModel>(_ type: T.Type) throws -> [any PersistentModel] {
            try rows(of: type, entity: entity, sql: sql)
        }
        return try load(entity.type)
    }

    /// Selects a relationship's targets in primary-key order: for a to-many, those of the owners
    /// whose keys are `keys`; for a to-one, the targets whose keys are `keys`.
    func relatedSelect(_ relationship: RelationshipInfo, keys: [Int64]) -> SQL {
        SQL(text: RelationshipSQL.targets(of: relationship, keys: keys.count), bindings: keys.map { .integer($0) })
    }

    /// Gives `owner`'s relationship the models it loaded (a fault's load, or a prefetch), not as a
    /// change: a to-many takes the changes that waited for it first (see ``DeferredListChanges``).
    func assign(loaded related: [any PersistentModel], to relationship: RelationshipInfo, of owner: any PersistentModel) {
        var models = related
        if relationship.isToMany { models = deferredListChanges.apply(to: related, list: relationship.column, of: owner) }
        owner._$modelKit.loading { relationship.access.assign(owner, models) }
    }

    /// Records that `target` joins (or leaves) `owner`'s to-many `list`, which is not loaded: the
    /// list takes the change when it loads. The owner counts as changed, as it would had the list
    /// been loaded and changed in place. No one observes the list yet: reading it loads it.
    func deferChange(
        of list: RelationshipInfo, of owner: any PersistentModel, joining target: any PersistentModel, _ joins: Bool
    ) {
        deferredListChanges.record(target, joins: joins, list: list.column, of: owner)
        owner._$modelKit.changedColumns.insert(list.column)
        modelDidChange(owner)
    }

    /// Makes the other side of each relationship `model` was created with point back at it, as
    /// setting those properties would have. Relationships set through their setters already did.
    func linkInverses(of model: any PersistentModel) {
        let storage = model._$modelKit
        guard let entity = storage.entity, storage.hasInitialRelationships || !entity.unnotedRelationships.isEmpty else { return }
        let relationships = storage.hasInitialRelationships ? entity.orderedRelationships : entity.unnotedRelationships
        storage.hasInitialRelationships = false
        for relationship in relationships where relationship.inverse != nil {
            guard !storage.hasFault(at: relationship.column) else { continue }
            for related in relationship.access.read(model) {
                relationship.inverse!.link(model, to: related)
            }
        }
    }

    /// The stored key of the model `model`'s to-one at `index` holds, loaded or not (`NULL` for
    /// none, or for a model without a row).
    func heldKey(of model: some PersistentModel, at index: Int) throws -> SQLValue {
        if case .toOne(let key)? = model._$modelKit.faults?[index] { return .integer(key) }
        return try model._modelKitValue(at: index)
    }

    /// The registered models whose to-many, the inverse of `relationship`, a to-one's move from
    /// the row under `current` to the one under `stored` changes, each with whether the model
    /// joins its list (or leaves it).
    func inverseLists(
        of relationship: RelationshipInfo, leaving current: SQLValue, joining stored: SQLValue
    ) -> [(any PersistentModel, RelationshipInfo, joins: Bool)] {
        guard let list = relationship.inverse, list.isToMany else { return [] }
        return [(current, false), (stored, true)].compactMap { value, joins in
            guard case .integer(let key) = value,
                let target = registered[RowKey(entity: relationship.target, rowID: key)] as? any PersistentModel
            else { return nil }
            return (target, list, joins)
        }
    }

    /// Makes the loaded lists `lists` names take `model` or let go of it, in place and not as a
    /// change: the engine moved `model`'s to-one to a stored value (a merge, a reload), which no
    /// setter kept in step. Lists not loaded yet will load the stored state.
    func follow(_ lists: [(any PersistentModel, RelationshipInfo, joins: Bool)], of model: any PersistentModel) {
        for (target, list, joins) in lists where !target._$modelKit.hasFault(at: list.column) {
            guard !joins || !list.access.holds(target, model) else { continue }
            target._$modelKit.loading { _ = list.access.include(target, model, joins) }
        }
    }

    /// Breaks the reference cycles between registered models as the context goes away. A
    /// relationship can only hold a cycle when models loaded it and other models loaded its
    /// inverse (as ``loadedRelationships`` notes); then every loaded instance of it goes back to
    /// being a fault (for a to-one whose inverse is a to-many, emptying the to-many is enough).
    /// Without this a graph of models, and the container their handle keeps, would never be
    /// released. Models the program still holds load the relationship again on first read.
    func unloadRelationships() {
        for entity in container.schema.entities where !entity.relationshipsByColumn.isEmpty {
            let cyclic = entity.orderedRelationships.filter { relationship in
                // A required to-one never goes back to a fault: its inverse's side breaks the cycle.
                if case .toOne(_, isOptional: false) = relationship.shape { return false }
                guard let inverse = relationship.inverse, relationship.isToMany || !inverse.isToMany else { return false }
                return loadedRelationships.mayHold(relationship, of: entity) && loadedRelationships.mayHold(inverse, of: relationship.target)
            }
            guard !cyclic.isEmpty else { continue }
            forEachModel(of: entity) { model in
                for relationship in cyclic where !model._$modelKit.hasFault(at: relationship.column) {
                    unload(relationship, of: model)
                }
            }
        }
    }

    /// Calls `body` with each registered model of `entity`, without a dynamic cast per model
    /// outside a class hierarchy (whose classes share their root's slot).
    private func forEachModel(of entity: Schema.Entity, _ body: (any PersistentModel) -> Void) {
        func visit<T: PersistentModel>(_ type: T.Type) {
            registered.forEachModel(of: entity.rootIdentifier) { object in
                if !entity.isInHierarchy { return body(unsafeDowncast(object, to: T.self)) }
                if let model = object as? T { body(model) }
            }
        }
        visit(entity.type)
    }

    /// Empties a loaded relationship and marks it to load again on first read.
    private func unload(_ relationship: RelationshipInfo, of model: any PersistentModel) {
        let storage = model._$modelKit
        let fault: ModelStorage.Fault
        switch relationship.shape {
        case .toMany:
            fault = .toMany
        case .toOne(_, isOptional: true):
            guard let key = relationship.access.read(model).first?._$modelKit.rowID else { return }
            fault = .toOne(key)
        case .toOne:
            return  // required: loaded with the model, and never a fault
        }
        // Emptied first, then marked: writing a relationship with a fault would load it.
        storage.loading { relationship.access.assign(model, []) }
        // Put together and stored whole: the state keeps no empty faults, so `faults?[…] =` on
        // a model without any would set nothing.
        var faults = storage.faults ?? [:]
        faults[relationship.column] = fault
        storage.faults = faults
    }

    /// The models `model` relates to through loaded relationships, without loading faults.
    func loadedRelatedModels(of model: any PersistentModel) -> [any PersistentModel] {
        let storage = model._$modelKit
        guard let entity = storage.entity, !entity.relationshipsByColumn.isEmpty else { return [] }
        let faults = storage.faults
        var related: [any PersistentModel] = []
        for relationship in entity.orderedRelationships where faults?[relationship.column] == nil {
            let models = relationship.access.read(model)
            if related.isEmpty { related = models } else { related += models }
        }
        return related
    }
}

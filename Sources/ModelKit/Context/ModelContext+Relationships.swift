import Foundation

extension ModelContext {
    /// Loads a relationship left as a fault, without tracking it as a change. A failure leaves
    /// the relationship empty and goes to `ModelKitDebugLog`; the model stays usable.
    func load(_ fault: ModelStorage.Fault, of relationship: RelationshipInfo, into model: any PersistentModel) {
        do {
            let related = try relatedModels(fault, of: relationship, owner: model)
            model._$modelKit.loading { relationship.access.assign(model, related) }
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
            guard let rowID = owner._$modelKit.rowID else { return [] }
            return try models(of: relationship.target, sql: relatedSelect(relationship, keys: [rowID]))
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
        let target = relationship.target!
        let placeholders = SQL.placeholders(keys.count)
        let pk = TableSQL.quotedPrimaryKey
        let filter: String
        switch relationship.storage {
        case .inverseForeignKey:
            filter = "\(target.sql.columns[relationship.inverse!.column]) IN (\(placeholders))"
        case .joinTable(let name, let ownerColumn, let targetColumn):
            filter = "\(pk) IN (SELECT \(targetColumn.quotedIdentifier) FROM \(name.quotedIdentifier) WHERE \(ownerColumn.quotedIdentifier) IN (\(placeholders)))"
        case .foreignKey:
            filter = "\(pk) IN (\(placeholders))"
        }
        return SQL(text: "\(target.sql.select) WHERE \(filter) ORDER BY \(pk)", bindings: keys.map { .integer($0) })
    }

    /// Makes the other side of each relationship `model` was created with point back at it, as
    /// setting those properties would have.
    func linkInverses(of model: any PersistentModel) {
        guard let entity = model._$modelKit.entity else { return }
        for relationship in entity.orderedRelationships where relationship.inverse != nil {
            guard model._$modelKit.faults?[relationship.column] == nil else { continue }
            for related in relationship.access.read(model) {
                relationship.inverse!.link(model, to: related)
            }
        }
    }

    /// Breaks the reference cycles between registered models as the context goes away: a loaded
    /// relationship whose targets have loaded the inverse (so each side holds the other) goes back
    /// to being a fault. Without this a graph of models, and the container their handle keeps,
    /// would never be released. Models the program still holds load it again on first read. A
    /// to-one whose inverse is a to-many is left alone: emptying the to-many breaks that cycle.
    func unloadRelationships() {
        guard container.schema.entities.contains(where: { !$0.relationships.isEmpty }) else { return }
        registered.forEachModel { object in
            guard let model = object as? any PersistentModel, let entity = model._$modelKit.entity,
                !entity.relationships.isEmpty
            else { return }
            let storage = model._$modelKit
            for relationship in entity.orderedRelationships where storage.faults?[relationship.column] == nil {
                guard let inverse = relationship.inverse, relationship.isToMany || !inverse.isToMany else { continue }
                let targets = relationship.access.read(model)
                guard targets.contains(where: { $0._$modelKit.faults?[inverse.column] == nil }) else { continue }
                let fault: ModelStorage.Fault
                switch relationship.shape {
                case .toMany:
                    fault = .toMany
                case .toOne(_, isOptional: true):
                    guard let key = targets.first?._$modelKit.rowID else { continue }
                    fault = .toOne(key)
                case .toOne:
                    continue  // required: loaded with the model, and never a fault
                }
                // Emptied first, then marked: writing a relationship with a fault would load it.
                storage.loading { relationship.access.assign(model, []) }
                storage.faults = (storage.faults ?? [:]).merging([relationship.column: fault]) { _, new in new }
            }
        }
    }

    /// The models `model` relates to through loaded relationships, without loading faults.
    func loadedRelatedModels(of model: any PersistentModel) -> [any PersistentModel] {
        guard let entity = model._$modelKit.entity, !entity.relationships.isEmpty else { return [] }
        return entity.orderedRelationships
            .filter { model._$modelKit.faults?[$0.column] == nil }
            .flatMap { $0.access.read(model) }
    }
}

extension ModelContext {
    /// The plan of `batch`'s writes: its inserts in order, its changed models' changed columns,
    /// the join-table links that are new or changed, and its deletes. Reads the models; changes
    /// nothing.
    func savePlan(for batch: SaveBatch) throws -> SavePlan {
        var planner = SavePlanner(inserted: batch.inserted)
        var plan = SavePlan()
        plan.inserts = try SavePlan.Inserts(batch.inserted) { try $0._$modelKit.entity ?? entity(for: type(of: $0)) }
        for (place, insert) in plan.inserts.enumerated() {
            planner.references(of: batch.inserted[place], in: insert.entity) { plan.insertReferences.append((place, $0)) }
        }
        for model in batch.changed {
            let storage = model._$modelKit
            guard let key = storage.rowID, !storage.changedColumns.isEmpty else { continue }
            let entity = try storage.entity ?? entity(for: type(of: model))
            var update = SavePlan.Update(entity: entity, key: key, changed: storage.changedColumns, values: SavePlan.Values(of: model))
            planner.references(of: model, in: entity, among: storage.changedColumns) { update.references.append($0) }
            plan.updates.append(update)
        }
        for (place, model) in batch.inserted.enumerated() { links(of: model, as: .inserted(place), planner: &planner, into: &plan.links) }
        for model in batch.changed {
            guard let key = model._$modelKit.rowID else { continue }
            links(of: model, as: .stored(key), planner: &planner, into: &plan.links)
        }
        for model in batch.deleted {
            guard let key = model._$modelKit.rowID else { continue }
            plan.deletes.append(SavePlan.Delete(entity: try model._$modelKit.entity ?? entity(for: type(of: model)), key: key))
        }
        return plan
    }

    /// The join-table links of `model`'s to-many relationships that are new or changed: a new
    /// model's lists whole; for a loaded list, the list as it is now, which the store compares
    /// with the stored links; for a list not loaded, the changes made through its inverse
    /// meanwhile (see ``DeferredListChanges``). Only the owning side of a many-to-many writes;
    /// the other side mirrors it in memory.
    private func links(of model: any PersistentModel, as owner: SavePlan.Row, planner: inout SavePlanner, into links: inout [SavePlan.Links]) {
        let storage = model._$modelKit
        guard let entity = storage.entity, !entity.relationshipsByColumn.isEmpty else { return }
        for relationship in entity.orderedRelationships {
            guard case .joinTable(let table, "owner", let targetColumn) = relationship.storage,
                storage.isInserted || storage.changedColumns.contains(relationship.column)
            else { continue }
            let change: SavePlan.Links.Change
            if storage.hasFault(at: relationship.column) {
                let outcome = deferredListChanges.outcome(of: model, list: relationship.column)
                change = .apply(linking: outcome.joined.compactMap { planner.row(of: $0) }, unlinking: outcome.left.compactMap { planner.row(of: $0) })
            } else {
                let current = relationship.access.read(model).compactMap { planner.row(of: $0) }
                change = storage.isInserted ? .replaceAll(with: current) : .match(current)
            }
            links.append(SavePlan.Links(table: table, targetColumn: targetColumn, owner: owner, change: change))
        }
    }
}

/// Names the models a save's plan points at: by key when stored, by their place among the
/// save's inserts when not. The places are looked up only once a model without a key is met.
private struct SavePlanner {
    let inserted: [any PersistentModel]
    private var places: [ObjectIdentifier: Int]?

    init(inserted: [any PersistentModel]) {
        self.inserted = inserted
    }

    /// `model`'s row; nil for a model neither stored nor inserted by the save.
    mutating func row(of model: any PersistentModel) -> SavePlan.Row? {
        if let key = model._$modelKit.rowID { return .stored(key) }
        return place(of: model).map(SavePlan.Row.inserted)
    }

    /// Hands `found` the to-ones of `model` (those at `columns`, when given) that point at models
    /// the save inserts. Nothing to do for a model without relationships.
    mutating func references(
        of model: any PersistentModel, in entity: Schema.Entity, among columns: ChangedColumns? = nil, _ found: (SavePlan.Reference) -> Void
    ) {
        guard !entity.relationshipsByColumn.isEmpty else { return }
        for relationship in entity.orderedRelationships where !relationship.isToMany {
            guard columns?.contains(relationship.column) ?? true, !model._$modelKit.hasFault(at: relationship.column),
                let target = relationship.access.read(model).first, target._$modelKit.rowID == nil,
                let place = place(of: target)
            else { continue }
            found(SavePlan.Reference(column: relationship.column, target: place))
        }
    }

    private mutating func place(of model: any PersistentModel) -> Int? {
        if places == nil {
            places = Dictionary(uniqueKeysWithValues: inserted.enumerated().map { (ObjectIdentifier($1), $0) })
        }
        return places![ObjectIdentifier(model)]
    }
}

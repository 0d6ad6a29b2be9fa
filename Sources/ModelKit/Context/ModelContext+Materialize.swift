import Foundation

/// Rows into models: the identity map's instance or a new one, a registered model refreshed from
/// its row (keeping its unsaved changes) or reloaded (discarding them), and the stand-in for an
/// identifier with no stored row.
extension ModelContext {
    /// An unsaved model of `entity` that answers to `identifier`, made from neutral values: each
    /// property's declared default, or else zero, empty or NULL.
    func standIn(for identifier: PersistentIdentifier, of entity: Schema.Entity) throws -> any PersistentModel {
        let model = try unsavedModel(of: entity, values: [:])
        model._$modelKit.answer(to: identifier)
        return model
    }

    /// What a property holds when nothing was stored for it: its declared default, or else zero,
    /// empty or NULL.
    static func neutralValue(of property: Schema.PropertyMetadata) -> SQLValue {
        if let value = property.encodedDefault { return value }
        guard let codec = property.codec, !codec.isOptional, property.relationshipShape == nil else { return .null }
        switch codec.affinity {
        case .integer: return .integer(0)
        case .real: return .real(0)
        case .text: return .text("")
        case .blob: return .blob(Data(count: 16))
        }
    }

    /// A new, unsaved model of `entity` holding `values` (by property index) and, for the other
    /// properties, neutral values: each one's declared default, or else zero, empty or NULL. It is
    /// made as a stored row would be, from a row in memory: no initializer of the app's runs.
    func unsavedModel(of entity: Schema.Entity, values: [Int: SQLValue]) throws -> any PersistentModel {
        // A row shaped as the entity's select reads: its properties at their result columns.
        var row = [SQLValue](repeating: .null, count: entity.sql.selectedColumnCount)
        for (index, (property, column)) in zip(entity.metadata, entity.resultColumns).enumerated() {
            row[Int(column)] = values[index] ?? Self.neutralValue(of: property)
        }
        func make<T: PersistentModel>(_ type: T.Type) throws -> any PersistentModel {
            try T(_modelKitRow: ModelRow(statement: Statement(row: row), entity: entity, context: self))
        }
        let model = try make(entity.type)
        model._$modelKit.entity = entity
        return model
    }

    /// The model of `entity` stored under `rowID`: the registered instance, or one loaded now.
    /// Nil when no such row is stored.
    func model(of entity: Schema.Entity, rowID: Int64) throws -> (any PersistentModel)? {
        if let registered = registered[RowKey(entity: entity, rowID: rowID)] as? any PersistentModel { return registered }
        if let custom = customStore(of: entity) { return try customModel(of: entity, key: rowID, in: custom) }
        return try models(of: entity, sql: SQL(text: entity.sql.selectByPrimaryKey, bindings: [.integer(rowID)])).first
    }

    /// The registered instance for the row under `row`, or a new instance loaded from it. With
    /// `refreshing`, a registered instance takes the row's values for the properties it has not
    /// changed itself.
    func materialize<T: PersistentModel>(_ type: T.Type, row: ModelRow, refreshing: Bool) throws -> T {
        if let row = row.asSubclass { return try materialize(type, row: row, refreshing: refreshing) }
        let key = RowKey(entity: row.entity, rowID: row.primaryKey)
        let place = registered.place(of: key)
        if case .present(let existing) = place {
            let model = existing as! T
            if refreshing { try refresh(model, from: row) }
            return model
        }
        // A row of a subclass is made as the subclass; the initializer is `required`.
        let model =
            row.entity.isInHierarchy ? try (row.entity.type as! T.Type).init(_modelKitRow: row) : try T(_modelKitRow: row)
        let storage = model._$modelKit
        storage.rowID = key.rowID
        storage.entity = row.entity
        if !row.entity.relationshipsByColumn.isEmpty {
            storage.faults = row.faults
            storage.relationshipsMayDisagree = true  // what the row holds, not what setters kept in step
        }
        if let faults = row.partial?.faults { storage.markUnfetched(faults) }
        storage.enter(link(for: row.entity).handle)
        registered.insert(model, at: place, for: key)
        return model
    }

    /// Gives a registered model the row's values for every property it has not changed itself,
    /// assigning only those that differ, so observers hear of real changes only. A loaded to-one
    /// that now points elsewhere goes back to loading on first read, and the loaded lists of its
    /// inverse let go of the model, on the model it left, and take it, on the one it joined:
    /// those rows did not change, so no refresh of theirs would, and a list with unsaved changes
    /// keeps them.
    func refresh(_ model: some PersistentModel, from row: ModelRow) throws {
        if let row = row.asSubclass { return try refresh(model, from: row) }
        let storage = model._$modelKit
        guard !storage.isDeleted else { return }
        let entity = row.entity
        var assignments: [(Column, Any)] = []
        var movedToOnes: [(index: Int, relationship: RelationshipInfo, stored: SQLValue, current: SQLValue)] = []
        // A column the row or the model holds a partial fetch's placeholder for is left alone:
        // the model's loads from the row on first read.
        let unfetched = (row.partial?.unfetched ?? []) + (storage.faults?.unfetchedColumns ?? [])
        for index in entity.columns.indices
        where !storage.changedColumns.contains(index) && entity.ephemeralValues?[index] == nil
            && (unfetched.isEmpty || !unfetched.contains(index))
        {
            let stored = row.stored(at: index)
            guard let relationship = entity.relationshipsByColumn[index] else {
                if try stored != model._modelKitValue(at: index) {
                    assignments.append((entity.columns[index], try entity.decode(stored, at: index)))
                }
                continue
            }
            guard !relationship.isToMany else { continue }
            let current = try heldKey(of: model, at: index)
            if stored != current { movedToOnes.append((index, relationship, stored, current)) }
        }
        guard !assignments.isEmpty || !movedToOnes.isEmpty else { return }
        let staleLists = movedToOnes.flatMap { inverseLists(of: $0.relationship, leaving: $0.current, joining: $0.stored) }
        var required: [(Column, Any)] = []
        var faults: [Int: ModelStorage.Fault?] = [:]
        for (index, relationship, stored, _) in movedToOnes {
            if case .toOne(_, isOptional: false) = relationship.shape {
                required.append((entity.columns[index], try row.value(at: index) as Any))
                continue
            }
            if case .integer(let key) = stored { faults[index] = .toOne(key) } else { faults[index] = .some(nil) }
            // One not loaded holds the placeholder already; a write would load it first.
            if !storage.hasFault(at: index) { assignments.append((entity.columns[index], relationship.access.placeholder)) }
        }
        storage.loading {
            for (column, value) in assignments + required { column.assign(value, to: model) }
        }
        // Marked after the writes: writing a relationship with a fault would load it.
        for (index, fault) in faults {
            var all = storage.faults ?? [:]
            all[index] = fault
            storage.faults = all
        }
        follow(staleLists, of: model)
    }

    /// Reads a custom store's model again from its newest snapshot, overwriting its attributes
    /// and to-ones; a model the store no longer has is marked deleted and leaves the context.
    private func reload(_ model: any PersistentModel, key: Int64, entity: Schema.Entity, from custom: CustomStore) throws {
        let storage = model._$modelKit
        storage.changedColumns.removeAll()
        deferredListChanges.removeAll(of: model)
        guard let snapshot = try customSnapshot(of: entity, key: key, in: custom) else { return forgetDeletedElsewhere(model) }
        try refresh(model, from: row(of: snapshot, entity: entity, key: key, in: custom))
    }

    /// Reads a stored model's row again, overwriting its attributes; its relationships go back to
    /// being loaded on first read, and the loaded lists of their inverses follow a to-one that
    /// moves back to its stored target. A model whose row is gone is marked deleted and leaves the
    /// context.
    func reload(_ model: any PersistentModel) throws {
        let storage = model._$modelKit
        guard let rowID = storage.rowID else { return }
        let entity = try entity(for: type(of: model))
        if let custom = customStore(of: entity) { return try reload(model, key: rowID, entity: entity, from: custom) }
        let read = try reader(for: entity).first(SQL(text: entity.sql.selectByPrimaryKey, bindings: [.integer(rowID)])) { statement in
            let row = ModelRow(statement: statement, entity: entity, context: self)
            var values: [(Column, Any)] = []
            for (index, column) in entity.columns.enumerated() where entity.relationshipsByColumn[index] == nil {
                // The row's stored value: an external one read from its file, an ephemeral one its default.
                values.append((column, try entity.decode(row.stored(at: index), at: index)))
            }
            var movedLists: [(any PersistentModel, RelationshipInfo, joins: Bool)] = []
            for relationship in entity.orderedRelationships {
                // One not loaded holds its placeholder already, and a write through its key path
                // would read it, loading it, first.
                if !storage.hasFault(at: relationship.column) {
                    values.append((entity.columns[relationship.column], try row.value(at: relationship.column) as Any))
                }
                guard !relationship.isToMany, relationship.inverse?.isToMany == true else { continue }
                let (current, stored) = (try heldKey(of: model, at: relationship.column), row.stored(at: relationship.column))
                if current != stored { movedLists += inverseLists(of: relationship, leaving: current, joining: stored) }
            }
            return (values, movedLists, row.faults)
        }
        guard let (values, movedLists, faults) = read else {
            storage.changedColumns.removeAll()
            forgetDeletedElsewhere(model)
            return
        }
        storage.loading {
            for (column, value) in values { column.assign(value, to: model) }
        }
        storage.faults = faults
        storage.changedColumns.removeAll()
        deferredListChanges.removeAll(of: model)
        follow(movedLists, of: model)
    }
}

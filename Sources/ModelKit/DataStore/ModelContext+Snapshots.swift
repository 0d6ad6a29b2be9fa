import Foundation

/// Models into snapshots and snapshots into models, for custom stores.
extension ModelContext {
    /// The snapshot of `model` under `identifier`: each stored property's value by name, a
    /// to-one as its target's identifier, a to-many as its targets'. Relationships not loaded
    /// load first. Properties whose type is not `Codable` are left out.
    func snapshot(of model: any PersistentModel, entity: Schema.Entity, identifier: PersistentIdentifier) -> DefaultSnapshot {
        var values: [String: any Codable] = [:]
        values.reserveCapacity(entity.metadata.count)
        for (index, property) in entity.metadata.enumerated() where !property.isEphemeral {
            if let relationship = entity.relationshipsByColumn[index] {
                let related = relationship.access.read(model).map(\.persistentModelID)
                values[property.name] = relationship.isToMany ? related : related.first
                continue
            }
            guard let type = property.valueType as? any Codable.Type, let value = model[keyPath: property.keyPath],
                let snapshotValue = Self.snapshotValue(value, as: type)
            else { continue }
            values[property.name] = snapshotValue
        }
        return DefaultSnapshot(persistentIdentifier: identifier, values: values)
    }

    /// `value` as the property's own type, so that a nil optional keeps its type.
    private static func snapshotValue<V: Codable>(_ value: Any, as type: V.Type) -> (any Codable)? {
        value as? V
    }

    /// The identifier a to-one's snapshot value holds, if any.
    static func identifier(in value: any Codable) -> PersistentIdentifier? {
        if let identifier = value as? PersistentIdentifier { return identifier }
        if let identifier = value as? PersistentIdentifier? { return identifier }
        return nil
    }

    /// The model `snapshot` stands for: the registered instance, refreshed from it where the
    /// model has not changed, or a new one made from it.
    func model<T: PersistentModel>(_ type: T.Type, of snapshot: DefaultSnapshot, entity: Schema.Entity, key: Int64, in custom: CustomStore) throws -> T {
        try materialize(T.self, row: row(of: snapshot, entity: entity, key: key, in: custom), refreshing: true)
    }

    /// `snapshot` as a row of `entity` under `key`, to make or refresh one model from. (Many
    /// snapshots reuse one row instead: see ``models(_:of:entity:in:)``.)
    func row(of snapshot: DefaultSnapshot, entity: Schema.Entity, key: Int64, in custom: CustomStore) throws -> ModelRow {
        let rows = custom.rows(of: entity)
        let values = rows.makeValues()
        try rows.fill(values, from: snapshot, key: key, keys: custom.keys)
        return ModelRow(statement: Statement(values: values), entity: entity, context: self)
    }

    /// The models of `snapshots` of `entity` (others left out), the snapshots remembered as
    /// their models' newest when the entity has a to-many. One row is rewritten for each: a
    /// model is made from it at once.
    func models<T: PersistentModel>(_ type: T.Type, of snapshots: [DefaultSnapshot], entity: Schema.Entity, in custom: CustomStore) throws -> [T] {
        let name = entity.name
        let own = snapshots.allSatisfy { $0.persistentIdentifier.entityName == name }
            ? snapshots : snapshots.filter { $0.persistentIdentifier.entityName == name }
        let keys = custom.keys.keys(for: own.lazy.map(\.persistentIdentifier))
        // A to-many loads from its owner's snapshot; other models' snapshots are asked for again.
        if entity.orderedRelationships.contains(where: \.isToMany) { custom.remember(own, keys: keys) }
        let rows = custom.rows(of: entity)
        let values = rows.makeValues()
        let statement = Statement(values: values)
        // Collected as references, as a SQL fetch's rows are: a generic append per model costs more.
        let models = ReferenceCollector()
        for (snapshot, key) in zip(own, keys) {
            try rows.fill(values, from: snapshot, key: key, keys: custom.keys)
            models.append(try materialize(T.self, row: ModelRow(statement: statement, entity: entity, context: self), refreshing: true))
        }
        return models.take(as: T.self)
    }

    /// The model of `entity` a custom store keeps under `key`: from the snapshot last handed
    /// out, the store's cached snapshot, or a fetch of the entity. Nil when the store has none.
    func customModel(of entity: Schema.Entity, key: Int64, in custom: CustomStore) throws -> (any PersistentModel)? {
        guard let snapshot = try customSnapshot(of: entity, key: key, in: custom) else { return nil }
        func make<T: PersistentModel>(_ type: T.Type) throws -> any PersistentModel {
            try model(T.self, of: snapshot, entity: entity, key: key, in: custom)
        }
        return try make(entity.type)
    }

    /// The newest snapshot of the model of `entity` with `key`.
    func customSnapshot(of entity: Schema.Entity, key: Int64, in custom: CustomStore) throws -> DefaultSnapshot? {
        if let snapshot = custom.snapshot(for: key) { return snapshot }
        guard let identifier = custom.keys.identifier(for: key) else { return nil }
        let state = editingState
        if let cached = try custom.withStore({ try $0.cachedSnapshots(for: [identifier], editingState: state) })[identifier] {
            custom.remember([cached], keys: [key])
            return cached
        }
        return try allSnapshots(of: entity, in: custom).first { $0.persistentIdentifier == identifier }
    }

    /// Every snapshot of `entity` the store has, remembered.
    func allSnapshots(of entity: Schema.Entity, in custom: CustomStore) throws -> [DefaultSnapshot] {
        func fetch<T: PersistentModel>(_ type: T.Type) throws -> [DefaultSnapshot] {
            let request = DataStoreFetchRequest(descriptor: FetchDescriptor<T>(), editingState: editingState)
            return try custom.withStore { try $0.fetch(request) }.fetchedSnapshots
        }
        let snapshots = try fetch(entity.type).filter { $0.persistentIdentifier.entityName == entity.name }
        custom.remember(snapshots, keys: custom.keys.keys(for: snapshots.map(\.persistentIdentifier)))
        return snapshots
    }

    /// The targets of `owner`'s to-many in a custom store: those its snapshot lists, or, when
    /// the store kept no list, those whose inverse to-one names the owner.
    func customToMany(_ relationship: RelationshipInfo, of owner: any PersistentModel, in custom: CustomStore) throws -> [any PersistentModel] {
        guard let key = owner._$modelKit.rowID, let entity = owner._$modelKit.entity else { return [] }
        let target = relationship.target!
        let targetStore = container.store(for: target).custom ?? custom
        if let snapshot = try customSnapshot(of: entity, key: key, in: custom),
            let listed = snapshot.values[relationship.name] as? [PersistentIdentifier]
        {
            let keys = targetStore.keys.keys(for: listed)
            return try keys.compactMap { try model(of: target, rowID: $0) }
        }
        guard let inverse = relationship.inverse, !inverse.isToMany, let ownerID = custom.keys.identifier(for: key) else { return [] }
        let matching = try allSnapshots(of: target, in: targetStore).filter { snapshot in
            snapshot.values[inverse.name].flatMap(Self.identifier(in:)) == ownerID
        }
        return try targetStore.keys.keys(for: matching.map(\.persistentIdentifier)).compactMap { try model(of: target, rowID: $0) }
    }
}

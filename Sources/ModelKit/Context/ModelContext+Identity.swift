/// Identity: within one context, a stored row is always the same instance.
extension ModelContext {
    /// The model with `identifier` if the context has it in memory, without touching the store.
    public func registeredModel<T: PersistentModel>(for identifier: PersistentIdentifier) -> T? {
        registeredModel(with: identifier) as? T
    }

    private func registeredModel(with identifier: PersistentIdentifier) -> (any PersistentModel)? {
        if let entity = entity(storing: identifier), let keys = container.store(for: entity).identity.keys {
            // A custom store's identifier: its model's key here.
            guard let key = keys.existingKey(for: identifier) else { return nil }
            return registered[RowKey(entity: entity, rowID: key)] as? any PersistentModel
        }
        guard let rowID = identifier.rowID else {
            // Temporary numbers are unique in the process: compare them before building identifiers.
            guard case .temporary(let number) = identifier.key else { return nil }
            return inserted.models.first { $0._$modelKit.drawnTemporaryID == number && $0.persistentModelID == identifier }
        }
        guard let entity = entity(storing: identifier) else { return nil }
        return registered[RowKey(entity: entity, rowID: rowID)] as? any PersistentModel
    }

    /// The entity of a stored identifier, if it names a row of the container's store of that
    /// entity: identifiers of other stores match nothing here.
    func entity(storing identifier: PersistentIdentifier) -> Schema.Entity? {
        guard let entity = container.schema.entity(named: identifier.entityName),
            identifier.storeIdentifier == container.store(for: entity).identifier
        else { return nil }
        return entity
    }

    /// The key here of a stored identifier of `entity`'s store: its row's, or the key a custom
    /// store's identifier has in the container.
    func rowKey(of identifier: PersistentIdentifier, in entity: Schema.Entity) -> Int64? {
        if let keys = container.store(for: entity).identity.keys { return identifier.isTemporary ? nil : keys.key(for: identifier) }
        return identifier.rowID
    }

    /// The model with `identifier`: the registered instance, or one loaded from the store.
    ///
    /// As in SwiftData, when no such model is stored (it was deleted, or the identifier is from
    /// another store) the result is an unsaved stand-in whose `persistentModelID` is `identifier`,
    /// in no context: each property holds its declared default, or else zero, empty or nil.
    /// Prefer ``registeredModel(for:)`` or a fetch when existence is in doubt. A model type whose
    /// required properties have no such value (a required to-one, a `Codable` value without a
    /// default) cannot have a stand-in; for those the result is a ``MissingModel`` with the same
    /// identifier. Nothing here traps.
    public func model(for identifier: PersistentIdentifier) -> any PersistentModel {
        mergeChanges()
        registered.sweepIfGrown()
        if let model = registeredModel(with: identifier) { return model }
        if let entity = entity(storing: identifier), let rowID = rowKey(of: identifier, in: entity),
            let model = try? self.model(of: entity, rowID: rowID)
        {
            return model
        }
        let entity = container.schema.entity(named: identifier.entityName)
        if let entity, let model = try? standIn(for: identifier, of: entity) {
            return model
        }
        ModelKitDebugLog.log("no stored \(identifier.entityName) has the identifier \(identifier); returning a MissingModel")
        return MissingModel(identifier: identifier, entity: entity)
    }
}

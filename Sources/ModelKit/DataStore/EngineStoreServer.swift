import Foundation

/// One of the engine's own stores answering ``DataStore`` requests, through a container of its
/// configuration alone and a context per request: what ``DefaultStore`` and `PostgresStore` are.
package final class EngineStoreServer {
    /// The container of the store.
    package let container: ModelContainer

    /// Opens the store `configuration` describes, for its schema's model types.
    /// - Throws: ``ModelKitError/invalidConfiguration(_:reason:)`` when the configuration names
    ///   no schema; the container's errors.
    package init(_ configuration: some EngineStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else {
            throw ModelKitError.invalidConfiguration(
                configuration.name, reason: "a store opened as a DataStore holds the configuration's schema: give the configuration one")
        }
        container = try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration])
    }

    /// The store's identifier.
    package var identifier: String { container.stores[0].identifier }

    /// A context for one request of `editingState`.
    private func context(for editingState: EditingState) -> ModelContext {
        let context = ModelContext(container)
        context.author = editingState.author
        return context
    }

    /// The snapshots of the models the request describes, in its order.
    /// - Throws: the context's fetch errors.
    package func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let context = context(for: request.editingState)
        let models = try context.fetch(request.descriptor)
        let snapshots = models.map { context.snapshot(of: $0, entity: $0._$modelKit.entity!, identifier: $0.persistentModelID) }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    /// The number of models the request describes, counted by the database.
    /// - Throws: the context's fetch errors.
    package func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try context(for: request.editingState).fetchCount(request.descriptor)
    }

    /// The identifiers of the models the request describes, read without loading them.
    /// - Throws: the context's fetch errors.
    package func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try context(for: request.editingState).fetchIdentifiers(request.descriptor)
    }

    /// Saves the request's snapshots in one save: inserts as new models, updates onto the stored
    /// ones, deletes.
    /// - Throws: ``ModelKitError/modelNotInSchema(_:)`` for a snapshot of another entity; the
    ///   save's errors.
    package func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let context = context(for: request.editingState)
        var inserted: [PersistentIdentifier: any PersistentModel] = [:]
        var pairs: [(DefaultSnapshot, any PersistentModel)] = []
        for snapshot in request.inserted {
            let model = try context.unsavedModel(of: try entity(of: snapshot), values: [:])
            context.insert(model)
            inserted[snapshot.persistentIdentifier] = model
            pairs.append((snapshot, model))
        }
        for snapshot in request.updated {
            _ = try entity(of: snapshot)
            pairs.append((snapshot, context.model(for: snapshot.persistentIdentifier)))
        }
        for (snapshot, model) in pairs { try apply(snapshot, to: model, in: context, inserted: inserted) }
        for snapshot in request.deleted {
            _ = try entity(of: snapshot)
            context.delete(context.model(for: snapshot.persistentIdentifier))
        }
        let token = SavedToken()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            token.value = note.userInfo?[ModelContext.NotificationKey.historyTokens.rawValue] as? DefaultHistoryToken
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for (temporary, model) in inserted { remapped[temporary] = model.persistentModelID }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped, historyToken: token.value)
    }

    /// Deletes the models the request describes.
    /// - Throws: the context's errors.
    package func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        try context(for: request.editingState).delete(model: T.self, where: request.predicate, includeSubclasses: request.includeSubclasses)
    }

    /// Deletes every model in the store.
    /// - Throws: the container's errors.
    package func erase() throws { try container.erase() }

    /// The store's snapshots of the models with `identifiers` that a context of the container
    /// has in memory: none, since each request has a context of its own.
    package func cachedSnapshots(for identifiers: [PersistentIdentifier]) -> [PersistentIdentifier: DefaultSnapshot] { [:] }

    /// The store's history.
    /// - Throws: the context's history errors.
    package func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try ModelContext(container).fetchHistory(descriptor)
    }

    /// Deletes the store's history.
    /// - Throws: the context's history errors.
    package func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try ModelContext(container).deleteHistory(descriptor)
    }

    private func entity(of snapshot: DefaultSnapshot) throws -> Schema.Entity {
        guard let entity = container.schema.entity(named: snapshot.persistentIdentifier.entityName) else {
            throw ModelKitError.modelNotInSchema(snapshot.persistentIdentifier.entityName)
        }
        return entity
    }

    /// Writes the snapshot's values to `model`, through its setters: attributes as they are,
    /// relationships as the models their identifiers name (those inserted in this save by their
    /// temporary identifiers).
    private func apply(
        _ snapshot: DefaultSnapshot, to model: any PersistentModel, in context: ModelContext, inserted: [PersistentIdentifier: any PersistentModel]
    ) throws {
        let entity = try entity(of: snapshot)
        func resolve(_ identifier: PersistentIdentifier) -> any PersistentModel {
            inserted[identifier] ?? context.model(for: identifier)
        }
        for (index, property) in entity.metadata.enumerated() {
            guard let value = snapshot.values[property.name] else { continue }
            if let relationship = entity.relationshipsByColumn[index] {
                let related: [any PersistentModel] =
                    if let list = value as? [PersistentIdentifier] { list.map(resolve) } else { ModelContext.identifier(in: value).map { [resolve($0)] } ?? [] }
                relationship.access.assign(model, related)
                continue
            }
            entity.columns[index].assign(value, to: model)
        }
    }
}

/// The history token a save's `didSave` carries, heard on the saving thread.
private final class SavedToken: @unchecked Sendable {
    var value: DefaultHistoryToken?
}

import Foundation

/// Fetches from custom stores: the store answers what it can, and the context filters, sorts
/// and pages the rest in memory, with the unsaved changes taken in.
extension ModelContext {
    /// The custom store that holds `T`, with `T`'s entity; nil for the engine's own stores.
    func customStore<T: PersistentModel>(for type: T.Type) throws -> (entity: Schema.Entity, store: CustomStore)? {
        let entity = try entity(for: T.self)
        guard let custom = customStore(of: entity) else { return nil }
        return (entity, custom)
    }

    /// The models `descriptor` describes, from a custom store.
    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` for a negative limit or offset;
    ///   the store's error; a predicate's evaluation error.
    func customFetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, in custom: CustomStore) throws -> [T] {
        try checkPaging(descriptor)
        mergeChanges()
        let pending = seesPendingChanges(descriptor)
        // With unsaved changes the page is cut here, once they are in.
        var asked = descriptor
        if pending { (asked.fetchOffset, asked.fetchLimit) = (nil, nil) }
        var (filtered, sorted, paged) = (true, true, !pending)
        var result: DataStoreFetchResult<T, DefaultSnapshot>
        do {
            result = try custom.withStore { try $0.fetch(DataStoreFetchRequest(descriptor: asked, editingState: editingState)) }
        } catch let error as DataStoreError where error != .invalidPredicate {
            // The store leaves the rest to the context: every model of the type, then filtered,
            // sorted and paged here.
            (filtered, sorted, paged) = (descriptor.predicate == nil, descriptor.sortBy.isEmpty, false)
            var all = FetchDescriptor<T>()
            all.includePendingChanges = descriptor.includePendingChanges
            result = try custom.withStore { try $0.fetch(DataStoreFetchRequest(descriptor: all, editingState: editingState)) }
        }
        if !result.relatedSnapshots.isEmpty {
            let related = Array(result.relatedSnapshots.values)
            custom.remember(related, keys: custom.keys.keys(for: related.map(\.persistentIdentifier)))
        }
        var models = try self.models(T.self, of: result.fetchedSnapshots, entity: entity, in: custom)
        if pending { models = models.filter { !$0._$modelKit.isDeleted } + unsavedModels(notIn: models) }
        if let predicate = descriptor.predicate {
            // The store judged stored values; models changed or inserted here are judged again.
            models = try models.filter { model in
                try (filtered && !model.hasChanges && !model._$modelKit.isInserted) || predicate.evaluate(model)
            }
        }
        if !descriptor.sortBy.isEmpty, !sorted || pending {
            models = PendingMerge.stableSorted(models) { lhs, rhs in
                for sort in descriptor.sortBy {
                    let result = sort.compare(lhs, rhs)
                    if result != .orderedSame { return result }
                }
                return .orderedSame
            }
        }
        return paged ? models : Array(models[descriptor.page(of: models.count)])
    }

    /// The number of models `descriptor` describes in a custom store: the identifiers the store
    /// gives of `T`'s models, or a fetch's count with unsaved changes or what the store leaves
    /// to the context.
    /// - Throws: as ``customFetch(_:entity:in:)``.
    func customFetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, in custom: CustomStore) throws -> Int {
        try customFetchIdentifiers(descriptor, entity: entity, in: custom).count
    }

    /// The identifiers of the models `descriptor` describes in a custom store: the store's
    /// (of `T`'s models), or those of a fetch with unsaved changes or what the store leaves to
    /// the context.
    /// - Throws: as ``customFetch(_:entity:in:)``.
    func customFetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, entity: Schema.Entity, in custom: CustomStore
    ) throws -> [PersistentIdentifier] {
        try checkPaging(descriptor)
        mergeChanges()
        if !seesPendingChanges(descriptor) {
            do {
                let request = DataStoreFetchRequest(descriptor: descriptor, editingState: editingState)
                let identifiers = try custom.withStore { try $0.fetchIdentifiers(request) }
                return identifiers.filter { $0.entityName == entity.name }
            } catch let error as DataStoreError where error != .invalidPredicate {}
        }
        return try customFetch(descriptor, entity: entity, in: custom).map(\.persistentModelID)
    }

    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` for a negative limit or offset.
    private func checkPaging<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws {
        if let limit = descriptor.fetchLimit, limit < 0 {
            throw ModelKitError.invalidFetchDescriptor("fetchLimit is \(limit); use nil for no limit, or 0 or more")
        }
        if let offset = descriptor.fetchOffset, offset < 0 {
            throw ModelKitError.invalidFetchDescriptor("fetchOffset is \(offset); use 0 or more")
        }
    }
}

extension ModelContext {
    /// The results of `descriptor` as ``fetch(_:)`` returns them, for an observer that holds the
    /// previous ones: the keys are read first (no rows when SQL answers alone), and only the rows
    /// of models the context does not hold yet are loaded. Registered models are current, since
    /// planning the fetch merges what others committed.
    func observedResults<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let plan = try plan(for: descriptor)
        guard let results = try unloadedResults(descriptor, plan: plan) else { return try fetch(descriptor) }
        var keys: [Int64] = []
        keys.reserveCapacity(results.count)
        results.forEach(in: 0..<results.count) { key, _ in if let key { keys.append(key) } }
        let loaded = try models(of: T.self, keyed: keys, entity: plan.entity)
        let models = models(in: 0..<results.count, of: results, loaded: loaded, entity: plan.entity, keepingGoneRows: false)
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching, of: models)
        }
        return models
    }

    /// The models of the rows under `keys`: the ones the context holds, and the others loaded in
    /// one statement. A key whose row is gone has none.
    func models<T: PersistentModel>(of type: T.Type, keyed keys: [Int64], entity: Schema.Entity) throws -> [Int64: T] {
        var models: [Int64: T] = [:]
        var missing: [Int64] = []
        for key in keys {
            if let model = registered[RowKey(entity: entity, rowID: key)] as? T { models[key] = model } else { missing.append(key) }
        }
        guard !missing.isEmpty else { return models }
        for model in try rows(of: T.self, entity: entity, sql: batchSelect(of: entity, keys: missing)) {
            if let rowID = model._$modelKit.rowID { models[rowID] = model }
        }
        return models
    }

    /// Which of the rows under `keys` the descriptor's predicate matches, asked of the store
    /// alone; nil when the predicate does not translate, or unsaved changes of the type count.
    func storedMatches<T: PersistentModel>(of descriptor: FetchDescriptor<T>, among keys: [Int64]) throws -> Set<Int64>? {
        let plan = try plan(for: descriptor)
        guard plan.filtersInSQL, !seesPendingChanges(descriptor) else { return nil }
        guard !keys.isEmpty else { return [] }
        return try run(on: plan.entity) { Set(try reader(for: plan.entity).integers(plan.selectKeys(among: keys))) }
    }
}

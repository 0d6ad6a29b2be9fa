extension ModelContext {
    /// The results of `descriptor` as keys, for an observer that compares them with the ones it
    /// holds before loading anything: what ``fetch(_:batchSize:)`` reads first. Nil when the
    /// fetch needs the models (see ``unloadedResults(_:plan:)``).
    func observedKeys<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> (UnloadedResults<T>, Schema.Entity)? {
        let plan = try plan(for: descriptor)
        return try unloadedResults(descriptor, plan: plan).map { ($0, plan.entity) }
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

    /// Which of the rows under `keys` the planned fetch's predicate matches, asked of the store
    /// alone; nil when the predicate does not translate, or unsaved changes of the type count.
    func storedMatches<T: PersistentModel>(
        of descriptor: FetchDescriptor<T>, planned plan: FetchPlan, among keys: [Int64]
    ) throws -> Set<Int64>? {
        guard plan.filtersInSQL, !seesPendingChanges(descriptor) else { return nil }
        guard !keys.isEmpty else { return [] }
        return try run(on: plan.entity) { Set(try reader(for: plan.entity).integers(plan.selectKeys(among: keys))) }
    }
}

extension ModelContext {
    /// The models the descriptor describes, in a collection that loads `batchSize` of them at a
    /// time as they are read: memory follows the batch, not the result count.
    ///
    /// The keys of the results are read first, in order. Unsaved changes of the type count (with
    /// `includePendingChanges`, the default): the models changed or inserted here are held as
    /// they are, and the stored rows load by batch. When the fetch cannot run wholly in SQL (or,
    /// on PostgreSQL, is sorted and has unsaved changes to sort in), the models are fetched at
    /// once and the collection holds them all.
    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` when `batchSize` is not positive, or
    ///   what ``fetch(_:)`` throws.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        try checkBatchSize(batchSize, of: "fetch")
        let plan = try plan(for: descriptor)
        guard let results = try unloadedResults(descriptor, plan: plan) else {
            return FetchResultsCollection(ResultBatches(try fetch(descriptor)))
        }
        return FetchResultsCollection(ResultBatches(count: results.count, batchSize: batchSize) { [self] range in
            var loaded: [Int64: T] = [:]
            do {
                loaded = try loadRows(in: range, of: results, entity: plan.entity)
            } catch {
                // A collection's subscript cannot throw: the batch's stored rows read as rows gone.
                ModelKitDebugLog.error("could not load a batch of \(T.self): \(error)")
            }
            return models(in: range, of: results, loaded: loaded, entity: plan.entity, keepingGoneRows: true)
        })
    }

    /// The identifiers of the models the descriptor describes, as a ``FetchResultsCollection``.
    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` when `batchSize` is not positive, or
    ///   what ``fetchIdentifiers(_:)`` throws.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<PersistentIdentifier> {
        try checkBatchSize(batchSize, of: "fetchIdentifiers")
        return FetchResultsCollection(ResultBatches(try fetchIdentifiers(descriptor)))
    }

    /// Calls `block` with each model the descriptor describes, loading `batchSize` models at a
    /// time, so memory follows the batch rather than the table when the descriptor runs in SQLite.
    /// The results are the ones when the call starts, taken as ``fetch(_:batchSize:)`` takes them:
    /// rows deleted meanwhile are skipped.
    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` when `batchSize` is not positive, or
    ///   what ``fetch(_:)`` throws.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        try checkBatchSize(batchSize, of: "enumerate")
        let plan = try plan(for: descriptor)
        guard let results = try unloadedResults(descriptor, plan: plan) else {
            try fetch(descriptor).forEach(block)
            return
        }
        for start in stride(from: 0, to: results.count, by: batchSize) {
            let batch = start..<min(start + batchSize, results.count)
            let loaded = try loadRows(in: batch, of: results, entity: plan.entity)
            try models(in: batch, of: results, loaded: loaded, entity: plan.entity, keepingGoneRows: false).forEach(block)
        }
    }

    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` unless `batchSize` is positive.
    private func checkBatchSize(_ batchSize: Int, of call: String) throws {
        guard batchSize > 0 else {
            throw ModelKitError.invalidFetchDescriptor("\(call)'s batchSize is \(batchSize); use 1 or more")
        }
    }

    /// The models of the stored rows among the results in `range`, by key. The models the
    /// previous batches loaded can go first.
    private func loadRows<T: PersistentModel>(
        in range: Range<Int>, of results: UnloadedResults<T>, entity: Schema.Entity
    ) throws -> [Int64: T] {
        registered.sweep()
        var keys: [Int64] = []
        results.forEach(in: range) { key, _ in if let key { keys.append(key) } }
        var loaded: [Int64: T] = [:]
        guard !keys.isEmpty else { return loaded }
        for model in try rows(of: T.self, entity: entity, sql: batchSelect(of: entity, keys: keys)) {
            if let rowID = model._$modelKit.rowID { loaded[rowID] = model }
        }
        return loaded
    }

    /// The results in `range` as models, in order: the stored rows from `loaded`, the models in
    /// memory as they are. A row not loaded (gone since the keys were read) reads as
    /// ``model(for:)`` reads it, an unsaved stand-in, when `keepingGoneRows`, and is left out
    /// otherwise.
    func models<T: PersistentModel>(
        in range: Range<Int>, of results: UnloadedResults<T>, loaded: [Int64: T], entity: Schema.Entity, keepingGoneRows: Bool
    ) -> [T] {
        var models: [T] = []
        models.reserveCapacity(range.count)
        results.forEach(in: range) { key, inMemory in
            guard let key else { return models.append(inMemory!) }
            if let model = loaded[key] { return models.append(model) }
            guard keepingGoneRows else { return }
            let store = link(for: entity).store.identifier
            let identifier = PersistentIdentifier(entityName: entity.name, storeIdentifier: store, key: .row(key))
            guard let model = model(for: identifier) as? T else {
                preconditionFailure("\(identifier) was deleted after the batched fetch; \(T.self) has no stand-in: fetch again")
            }
            models.append(model)
        }
        return models
    }

    /// The rows under `keys`: a range of keys when they are one, in order (as the rows of a fetch
    /// in key order are), which SQLite reads straight through; otherwise the keys bound as one
    /// JSON array, so that no batch size meets the database's limit on parameters.
    func batchSelect(of entity: Schema.Entity, keys: [Int64]) -> SQL {
        if let first = keys.first, let last = keys.last, case let span = last.subtractingReportingOverflow(first),
            !span.overflow, span.partialValue == keys.count - 1, zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 })
        {
            return SQL(text: RelationshipSQL.rowsInKeyRange(of: entity), bindings: [.integer(first), .integer(last)])
        }
        let dialect = container.store(for: entity).dialect
        return SQL(text: RelationshipSQL.rows(of: entity, keyedIn: dialect), bindings: [.keyArray(keys)])
    }
}

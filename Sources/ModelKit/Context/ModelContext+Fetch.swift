import Foundation
import Synchronization

extension ModelContext {
    /// The models the descriptor describes.
    ///
    /// Relationships load lazily, on first read, through the context (or a new one on the same
    /// container if it is gone). `relationshipKeyPathsForPrefetching` loads the named ones for
    /// every result at once: one query per relationship instead of one per model.
    ///
    /// The predicate, sorting, limit and offset run in SQLite when they translate. A predicate (or
    /// part of one) with no SQL translation is evaluated in Swift over the stored rows instead, so
    /// every predicate gets the right answer; `ModelKitDebugLog` names the node. With
    /// `includePendingChanges` (the default), unsaved inserts, changes and deletes count.
    /// - Throws: ``ModelKitError/modelNotInSchema(_:)`` for a type the container does not store,
    ///   or a typed error if the store cannot be read.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        if let (entity, custom) = try customStore(for: T.self) { return try customFetch(descriptor, entity: entity, in: custom) }
        let models = try fetchModels(descriptor)
        // `count`, not `isEmpty`: in this unspecialized code, `isEmpty` is `Collection`'s, reached
        // through the array type's metadata and conformance, where `count` is Array's own.
        if descriptor.relationshipKeyPathsForPrefetching.count > 0 {
            try prefetch(descriptor.relationshipKeyPathsForPrefetching, of: models)
        }
        return models
    }

    private func fetchModels<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        registered.sweepIfGrown()
        let plan = try plan(for: descriptor)
        let pending = seesPendingChanges(descriptor)
        var models = try rows(
            of: T.self, entity: plan.entity, sql: pending ? pendingSelect(plan, descriptor) : plan.select(paged: true),
            partial: plan.partial, wholeTable: plan.readsWholeTable)
        if plan.isCompleteInSQL && !pending { return models }

        if pending && plan.isCompleteInSQL {
            models = try merged(models, withPendingOf: descriptor, plan: plan)
        } else {
            if pending {
                models = models.filter { !$0._$modelKit.isDeleted } + unsavedModels(notIn: models)
            }
            if let predicate = descriptor.predicate {
                // SQLite judged stored values; models changed in memory are judged again here.
                models = try models.filter { model in
                    try (plan.filtersInSQL && !model.hasChanges) || predicate.evaluate(model)
                }
            }
            if pending || plan.orderBy == nil, !descriptor.sortBy.isEmpty {
                models = PendingMerge.stableSorted(models) { compare($0, $1, using: descriptor.sortBy) }
            }
        }
        return Array(models[descriptor.page(of: models.count)])
    }

    /// Stored rows that SQLite filtered and ordered, with the unsaved changes of their type taken
    /// in: deleted models leave, and changed and inserted models are judged in Swift and merged
    /// into place, so only they are sorted (stored rows first among equals). Without sort
    /// descriptors the rows keep their order, and new models follow.
    private func merged<T: PersistentModel>(_ rows: [T], withPendingOf descriptor: FetchDescriptor<T>, plan: FetchPlan) throws -> [T] {
        var ordered: [T] = []
        var loose: [T] = []
        ordered.reserveCapacity(rows.count)
        let keepsOrder = descriptor.sortBy.isEmpty
        for model in rows where !model._$modelKit.isDeleted {
            if model.hasChanges && !keepsOrder { loose.append(model) } else { ordered.append(model) }
        }
        loose += unsavedModels(notIn: rows)
        if let predicate = descriptor.predicate {
            // SQLite judged stored values; models changed in memory are judged again here.
            ordered = try ordered.filter { try !$0.hasChanges || predicate.evaluate($0) }
            loose = try loose.filter { try predicate.evaluate($0) }
        }
        guard !keepsOrder else { return ordered + loose }
        // On SQLite the unsaved models compare as SQLite ordered the rows, by stored values,
        // which is also much cheaper than a sort descriptor's comparison.
        let storedOrder = plan.orderInMemory
        func compare(_ lhs: T, _ rhs: T) -> ComparisonResult {
            if let storedOrder, let result = SortSQL.compare(lhs, rhs, by: storedOrder) { return result }
            return self.compare(lhs, rhs, using: descriptor.sortBy)
        }
        var result: [T] = []
        result.reserveCapacity(ordered.count + loose.count)
        PendingMerge.merge(
            PendingMerge.stableSorted(loose, by: compare), intoStored: ordered.count,
            sortsAhead: { compare($0, ordered[$1]) == .orderedAscending },
            // Appended one by one: in this unspecialized code, appending a slice walks it
            // through the generic collection protocols, several times the cost.
            stored: { for position in $0 { result.append(ordered[position]) } },
            looseItem: { result.append($0) })
        return result
    }

    /// The changed and inserted models of type `T` that `rows` lacks. There are usually few, and
    /// `rows` a page: a few of them are looked for by scanning, many through a set.
    func unsavedModels<T: PersistentModel>(notIn rows: [T]) -> [T] {
        var unsaved: [T] = []
        for pending in [changed, inserted] {
            for model in pending.models { if let model = model as? T { unsaved.append(model) } }
        }
        guard !unsaved.isEmpty, !rows.isEmpty else { return unsaved }
        guard unsaved.count * rows.count > 256 else {
            return unsaved.filter { !rows.containsIdentical($0) }
        }
        let found = Set(rows.map(ObjectIdentifier.init))
        return unsaved.filter { !found.contains(ObjectIdentifier($0)) }
    }

    /// The stored rows a fetch that sees unsaved changes starts from. With a limit, and an order
    /// SQLite gives as Swift would, only the first `offset + limit + n` rows can make the page,
    /// where `n` counts the unsaved changes and deletes of the type (each can move or remove at
    /// most one stored row ahead of it); inserts come from memory. Otherwise, every row.
    private func pendingSelect<T: PersistentModel>(_ plan: FetchPlan, _ descriptor: FetchDescriptor<T>) -> SQL {
        guard let limit = descriptor.fetchLimit, plan.isCompleteInSQL, descriptor.sortBy.isEmpty || plan.orderBy != nil else {
            return plan.select(paged: false)
        }
        let moved = changed.count(of: T.self) + deleted.count(of: T.self)
        let (partial, overflow) = (descriptor.fetchOffset ?? 0).addingReportingOverflow(limit)
        let (window, overflowAgain) = partial.addingReportingOverflow(moved)
        return overflow || overflowAgain ? plan.select(paged: false) : plan.select(window: window)
    }

    /// The number of models the descriptor describes. When the predicate translates, one
    /// `SELECT COUNT(*)` counts the stored rows, and unsaved changes are counted in memory: no
    /// model is loaded. Otherwise, the count of a fetch.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        if let (entity, custom) = try customStore(for: T.self) { return try customFetchCount(descriptor, entity: entity, in: custom) }
        let plan = try plan(for: descriptor)
        guard plan.filtersInSQL else { return try fetch(descriptor).count }
        guard seesPendingChanges(descriptor) else { return try count(plan.count, of: plan.entity) }
        let (unsaved, overridden) = unsavedOverrides(of: T.self)
        var total = try count(plan.count(leavingOut: overridden), of: plan.entity)
        for model in unsaved where try descriptor.predicate?.evaluate(model) ?? true { total += 1 }
        return descriptor.page(of: total).count
    }

    /// What a count or a sum over unsaved changes takes from memory and what it leaves out of
    /// SQL: the models of type `T` changed or inserted here, and the keys of the stored rows that
    /// models changed or deleted here stand for.
    func unsavedOverrides<T: PersistentModel>(of type: T.Type) -> (models: [T], keys: [Int64]) {
        let unsaved = unsavedModels(notIn: [T]())
        return (unsaved, unsaved.compactMap { $0._$modelKit.rowID } + deleted.models.compactMap { ($0 as? T)?._$modelKit.rowID })
    }

    private func count(_ sql: SQL, of entity: Schema.Entity) throws -> Int {
        try run(on: entity) { Int(try reader(for: entity).integers(sql).first ?? 0) }
    }

    /// The identifiers of the models the descriptor describes, read without loading the models
    /// when SQLite can answer alone; with unsaved changes, only the models changed or inserted
    /// here are read, in memory.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        if let (entity, custom) = try customStore(for: T.self) {
            return try customFetchIdentifiers(descriptor, entity: entity, in: custom)
        }
        let plan = try plan(for: descriptor)
        guard let results = try unloadedResults(descriptor, plan: plan) else {
            return try fetch(descriptor).map(\.persistentModelID)
        }
        let scope = link(for: plan.entity).store.identity.scope(for: plan.entity)
        var identifiers: [PersistentIdentifier] = []
        identifiers.reserveCapacity(results.count)
        results.forEach(in: 0..<results.count) { key, model in
            identifiers.append(model?.persistentModelID ?? PersistentIdentifier(scope: scope, key: .row(key!)))
        }
        return identifiers
    }

    /// The results of a fetch with the stored rows not loaded, as keys: what SQLite selects and
    /// pages, or, with unsaved changes, ``pendingResults(_:plan:)``. Nil when the fetch needs the
    /// models (see there).
    func unloadedResults<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, plan: FetchPlan) throws -> UnloadedResults<T>? {
        if customStore(of: plan.entity) != nil { return nil }
        if seesPendingChanges(descriptor) { return try pendingResults(descriptor, plan: plan) }
        guard plan.isCompleteInSQL else { return nil }
        let sql = plan.select(paged: true, from: plan.entity.sql.selectPrimaryKeys)
        return try run(on: plan.entity) { UnloadedResults(keys: try reader(for: plan.entity).integers(sql)) }
    }

    /// Plans a fetch, logging when the predicate runs in Swift. Every read starts here, so this is
    /// where the context merges what others committed.
    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` for a negative limit or offset.
    func plan<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> FetchPlan {
        if let limit = descriptor.fetchLimit, limit < 0 {
            throw ModelKitError.invalidFetchDescriptor("fetchLimit is \(limit); use nil for no limit, or 0 or more")
        }
        if let offset = descriptor.fetchOffset, offset < 0 {
            throw ModelKitError.invalidFetchDescriptor("fetchOffset is \(offset); use 0 or more")
        }
        mergeChanges()
        let entity = try entity(for: T.self)
        let dialect = container.store(for: entity).dialect
        let partial = descriptor.propertiesToFetch.count == 0 ? nil : try PartialFetch(descriptor, entity: entity)
        let plan = FetchPlan(descriptor, entity: entity, dialect: dialect, partial: partial)
        if let untranslated = plan.untranslated {
            ModelKitDebugLog.log("predicate on \(T.self) runs in Swift: \(untranslated)")
        }
        return plan
    }

    /// Runs `sql` and returns a model per row, reusing registered instances. With `wholeTable`,
    /// `sql` reads every row of the entity, and the identity map makes room for as many as the
    /// last such read returned.
    func rows<T: PersistentModel>(
        of type: T.Type, entity: Schema.Entity, sql: SQL, partial: PartialFetch? = nil, wholeTable: Bool = false
    ) throws -> [T] {
        try run(on: entity) {
            let models = ReferenceCollector()
            let refreshing = isBehindStore
            if wholeTable { registered.reserve(total: entity.wholeTableRows.load(ordering: .relaxed), of: entity.rootIdentifier) }
            try reader(for: entity).select(sql, through: { ModelRow(statement: $0, entity: entity, context: self, partial: partial) }) { row in
                models.append(try materialize(T.self, row: row, refreshing: refreshing))
            }
            if wholeTable { entity.wholeTableRows.store(models.count, ordering: .relaxed) }
            return models.take(as: T.self)
        }
    }

    /// Runs work on the store that holds `entity`, translating the database's errors into what
    /// they mean for the store, then merges what other processes committed if the work saw any.
    func run<R>(on entity: Schema.Entity, _ body: () throws -> R) throws -> R {
        try run(on: link(for: entity), body)
    }

    /// Runs work on `link`'s store, as the entity's form does.
    func run<R>(on link: StoreLink, _ body: () throws -> R) throws -> R {
        do {
            let result = try body()
            noticeCommitsSeenByReader(of: link)
            return result
        } catch let failure as any DatabaseFailure {
            throw link.store.error(for: failure)
        }
    }

    /// Whether unsaved changes affect what the descriptor describes.
    func seesPendingChanges<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) -> Bool {
        descriptor.includePendingChanges && hasPendingChanges(of: T.self)
    }

    func hasPendingChanges<T: PersistentModel>(of type: T.Type) -> Bool {
        inserted.containsModel(of: T.self) || changed.containsModel(of: T.self) || deleted.containsModel(of: T.self)
    }

    /// How two models compare by the descriptors, the first that tells them apart.
    private func compare<T: PersistentModel>(_ lhs: T, _ rhs: T, using descriptors: [SortDescriptor<T>]) -> ComparisonResult {
        for descriptor in descriptors {
            let result = descriptor.compare(lhs, rhs)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}

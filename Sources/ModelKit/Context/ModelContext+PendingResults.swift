import Foundation

/// The results of a fetch read without loading the stored rows: in order, each a stored row's
/// key, or a model in memory (inserted, or changed here). Eight bytes a stored row.
struct UnloadedResults<T: PersistentModel> {
    /// The keys, in order; a model in memory holds its place with `inMemory`, a key no store
    /// hands out.
    private(set) var keys: [Int64]
    /// The models in memory, by position.
    private var models: [Int: T] = [:]

    static var inMemory: Int64 { .min }

    init(keys: [Int64] = []) {
        self.keys = keys
    }

    var count: Int { keys.count }

    mutating func append(key: Int64) {
        keys.append(key)
    }

    mutating func append(_ model: T) {
        models[keys.count] = model
        keys.append(Self.inMemory)
    }

    /// The model in memory at `position`, nil for a stored row.
    func model(at position: Int) -> T? {
        keys[position] == Self.inMemory ? models[position] : nil
    }

    /// The results in `range`, each a stored row's key or a model in memory.
    func forEach(in range: Range<Int>, _ body: (_ key: Int64?, _ model: T?) throws -> Void) rethrows {
        for position in range {
            if let model = model(at: position) { try body(nil, model) } else { try body(keys[position], nil) }
        }
    }

    /// The results at the positions `range` names.
    func paged(_ range: Range<Int>) -> UnloadedResults {
        guard range.count < count else { return self }
        var page = UnloadedResults()
        forEach(in: range) { key, model in
            if let model { page.append(model) } else if let key { page.append(key: key) }
        }
        return page
    }
}

extension ModelContext {
    /// The results `descriptor` describes, unsaved changes taken in as ``fetch(_:)`` takes them
    /// in, in the same order, without loading the stored rows nothing here changed: they stay
    /// keys. SQLite reads the keys (and the sort columns' values), unpaged; deleted rows leave,
    /// and changed and inserted models are judged in Swift and merged into place.
    ///
    /// Nil when that cannot be done without the models: the descriptor does not run whole in SQL,
    /// a sorted descriptor on PostgreSQL (whose order Swift cannot compare stored values in), or
    /// an unsaved model whose sort values have no stored form.
    func pendingResults<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, plan: FetchPlan) throws -> UnloadedResults<T>? {
        guard plan.isCompleteInSQL, let storedOrder = plan.orderInMemory else { return nil }
        let keepsOrder = descriptor.sortBy.isEmpty
        let sortColumns = storedOrder.map(\.column)

        var changedByKey: [Int64: T] = [:]
        for case let model as T in changed.models { if let key = model._$modelKit.rowID { changedByKey[key] = model } }
        var deletedKeys = Set<Int64>()
        for case let model as T in deleted.models { if let key = model._$modelKit.rowID { deletedKeys.insert(key) } }

        // Stored rows stay keys, with their sort values in `values` (one run of
        // `sortColumns.count` per key); the changed models among them keep their place when
        // nothing is sorted, and are sorted in with the unsaved ones otherwise.
        var ordered = UnloadedResults<T>()
        var values: [SQLValue] = []
        var loose: [T] = []
        var inRows = Set<Int64>()
        let entity = plan.entity
        let sql = plan.selectKeys(with: sortColumns)
        try run(on: entity) {
            try reader(for: entity).select(sql) { statement in
                let key = statement.int64(at: 0)
                if deletedKeys.contains(key) { return }
                if let model = changedByKey[key] {
                    inRows.insert(key)
                    if keepsOrder { ordered.append(model) } else { loose.append(model) }
                    return
                }
                ordered.append(key: key)
                for index in sortColumns.indices { values.append(statement.column(Int32(index + 1))) }
            }
        }
        for model in unsavedModels(notIn: [T]()) {
            if let key = model._$modelKit.rowID, inRows.contains(key) { continue }
            loose.append(model)
        }
        // SQLite judged stored values; the models changed or inserted here are judged now.
        let predicate = descriptor.predicate
        if let predicate { loose = try loose.filter { try predicate.evaluate($0) } }
        guard keepsOrder else {
            guard let merged = merge(loose, into: ordered, values: values, by: storedOrder) else { return nil }
            return merged.paged(descriptor.page(of: merged.count))
        }
        var results = UnloadedResults<T>()
        try ordered.forEach(in: 0..<ordered.count) { key, model in
            if let model {
                if try predicate?.evaluate(model) ?? true { results.append(model) }
            } else if let key {
                results.append(key: key)
            }
        }
        for model in loose { results.append(model) }
        return results.paged(descriptor.page(of: results.count))
    }

    /// `loose` sorted and merged into `ordered`, stored rows first among equals, as ``fetch(_:)``
    /// merges: each goes before the first stored row it sorts ahead of, comparing stored values
    /// as SQLite ordered the rows. Nil when an unsaved model's sort value has no stored form.
    private func merge<T: PersistentModel>(
        _ loose: [T], into ordered: UnloadedResults<T>, values: [SQLValue], by order: [(column: Int, ascending: Bool)]
    ) -> UnloadedResults<T>? {
        var candidates: [(model: T, values: [SQLValue])] = []
        for model in loose {
            guard let encoded = try? order.map({ try model.loadedValue(at: $0.column) }) else { return nil }
            candidates.append((model, encoded))
        }
        func compare(_ lhs: ArraySlice<SQLValue>, _ rhs: ArraySlice<SQLValue>) -> ComparisonResult {
            for (index, (left, right)) in zip(lhs, rhs).enumerated() {
                let result = left.sqliteOrder(comparedTo: right)
                guard result != .orderedSame else { continue }
                return order[index].ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
            }
            return .orderedSame
        }
        let width = order.count
        var result = UnloadedResults<T>()
        PendingMerge.merge(
            PendingMerge.stableSorted(candidates) { compare($0.values[...], $1.values[...]) }, intoStored: ordered.count,
            sortsAhead: { compare($0.values[...], values[($1 * width)..<($1 * width + width)]) == .orderedAscending },
            stored: { for position in $0 { result.append(key: ordered.keys[position]) } },
            looseItem: { result.append($0.model) })
        return result
    }
}

extension ResultsObserver {
    /// Applies `changes` without reading the other results, when the changes name their rows and
    /// the results are unpaged and in an order Swift can reproduce (the plan's `orderInMemory`):
    /// which saved rows match now is one query over their keys, and each goes to its place by
    /// binary search. False when the results must be read again.
    func splice(_ changes: [StoreChange]) throws -> Bool {
        guard !isSetByHand, descriptor.fetchLimit == nil, descriptor.fetchOffset == nil, !changes.contains(where: \.isExternal),
            !keys.contains(Self.inMemory)
        else { return false }
        let plan = try modelContext.plan(for: descriptor)
        guard let order = plan.orderInMemory else { return false }
        let dependencies = signal.dependencies.withLock { $0 }
        let results = Set(entity.typeNames)  // the rows of the element's class and its subclasses
        var saved = Set<Int64>()
        var deleted = Set<Int64>()
        for change in changes {
            for (name, keys) in change.inserted.merging(change.updated, uniquingKeysWith: +) where dependencies.contains(name) {
                guard results.contains(name) else { return false }
                saved.formUnion(keys)
            }
            for (name, keys) in change.deleted where dependencies.contains(name) {
                guard results.contains(name) else { return false }
                deleted.formUnion(keys)
            }
        }
        guard let matching = try modelContext.storedMatches(of: descriptor, planned: plan, among: Array(saved)) else { return false }
        if try staysInPlace(saved: saved, deleted: deleted, matching: matching, order: order) { return true }
        // Out go deleted rows, rows that no longer match, and saved rows, which go back in place.
        var models = self.models
        var keys = self.keys
        var placing: [(key: Int64, model: Element)] = []
        var touched = false
        for position in keys.indices.reversed() where deleted.contains(keys[position]) || saved.contains(keys[position]) {
            touched = true
            if matching.contains(keys[position]) { placing.append((keys[position], models[position])) }
            models.remove(at: position)
            keys.remove(at: position)
        }
        let present = Set(placing.map(\.key))
        let arriving = matching.subtracting(present).sorted()
        guard touched || !arriving.isEmpty else { return true }
        let loaded = try modelContext.models(of: Element.self, keyed: arriving, entity: entity)
        placing += arriving.compactMap { key in loaded[key].map { (key, $0) } }
        for (key, model) in placing {
            guard let position = Self.position(of: model, key: key, in: models, keys: keys, order: order) else { return false }
            models.insert(model, at: position)
            keys.insert(key, at: position)
        }
        if keys == self.keys {
            announceChange()  // the same rows in the same order: only their properties changed
        } else {
            show(models, keys: keys, notifying: true)
        }
        return true
    }

    /// The common case, checked without copying the results: every saved row is a result still,
    /// in order with its neighbours, and none arrives or leaves. Reports the change when a saved
    /// row is among the results.
    private func staysInPlace(
        saved: Set<Int64>, deleted: Set<Int64>, matching: Set<Int64>, order: [(column: Int, ascending: Bool)]
    ) throws -> Bool {
        var found = 0
        for position in positions(of: saved.union(deleted)) {
            let key = keys[position]
            guard matching.contains(key) else { return false }
            found += 1
            for (left, right) in [(position - 1, position), (position, position + 1)] where left >= 0 && right < keys.count {
                guard let before = Self.precedes(models[left], keys[left], models[right], keys[right], order: order), before else {
                    return false
                }
            }
        }
        guard found == matching.count else { return false }  // a saved row arrives
        if found > 0 { announceChange() }
        return true
    }

    /// The positions of `wanted` keys among the results: a scan of the keys per key when they
    /// are few (comparing integers is far cheaper than hashing each result's key), one pass
    /// through a set otherwise.
    private func positions(of wanted: Set<Int64>) -> [Int] {
        if wanted.count <= 16 { return wanted.compactMap { keys.firstIndex(of: $0) } }
        return keys.indices.filter { wanted.contains(keys[$0]) }
    }

    /// Whether `lhs` (keyed `leftKey`) comes before `rhs` in `order`, then by key; nil when a
    /// value cannot be compared.
    private static func precedes(
        _ lhs: Element, _ leftKey: Int64, _ rhs: Element, _ rightKey: Int64, order: [(column: Int, ascending: Bool)]
    ) -> Bool? {
        let comparison = order.isEmpty ? .orderedSame : SortSQL.compare(lhs, rhs, by: order)
        guard let comparison else { return nil }
        return comparison == .orderedSame ? leftKey < rightKey : comparison == .orderedAscending
    }

    /// Where `model` goes among `models`, sorted by `order` and then by key, as SQL orders them:
    /// a binary search comparing stored values. Nil when a value cannot be compared.
    private static func position(
        of model: Element, key: Int64, in models: [Element], keys: [Int64], order: [(column: Int, ascending: Bool)]
    ) -> Int? {
        var (low, high) = (0, models.count)
        while low < high {
            let middle = (low + high) / 2
            guard let before = precedes(models[middle], keys[middle], model, key, order: order) else { return nil }
            if before { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

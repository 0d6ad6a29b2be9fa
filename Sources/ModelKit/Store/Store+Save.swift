extension Store {
    /// Writes `plan` in one transaction, with what a commit owes the others (see
    /// ``commit(in:_:)``), and answers with the inserted rows' keys.
    ///
    /// The order is fixed: deletes, so that a row inserted or updated with a deleted row's unique
    /// value takes it rather than upserting onto the row; updates that change a unique value and
    /// point at no new row, for the same reason; inserts (a row's to-ones pointing at rows
    /// inserted before it take their keys; the others are written once every row has one); the
    /// other updates; links; then the links and optional references to deleted rows are cleared,
    /// whichever step wrote them, and no stored required to-one may point at one; then the plan's
    /// attachment. If the save fails, the store is as it was.
    /// - Throws: ``ModelKitError/saveConflict(entity:identifiers:)`` when a row the plan updates
    ///   or deletes is gone; what the database or the attachment throws.
    func save(_ plan: SavePlan, in session: StoreSession) throws -> SaveOutcome {
        let (keys, token) = try commit(in: session) { writer in
            var execution = SaveExecution(plan: plan, store: self)
            let keys = try execution.run(with: &writer)
            if let attachment = plan.attachment { try attachment(writer.sqlOfItsOwn(), keys) }
            return (execution.change(keys: keys), keys)
        }
        return SaveOutcome(insertedKeys: keys, token: token)
    }
}

/// The writing of one ``SavePlan``, step by step, in the order ``Store/save(_:in:)``
/// documents.
private struct SaveExecution {
    let plan: SavePlan
    let store: Store
    /// The inserted rows' keys, filled as they are written.
    private var keys: [Int64] = []
    /// Updated and deleted rows found gone.
    private var vanished: [(entity: Schema.Entity, key: Int64)] = []

    init(plan: SavePlan, store: Store) {
        self.plan = plan
        self.store = store
    }

    mutating func run(with writer: inout RowWriter) throws -> [Int64] {
        try delete(with: &writer)
        // A stored row giving up a unique value goes before the inserts, so that a new row can
        // take the value; such an update points at no new row.
        try update(with: &writer) { $0.movesUniqueValue }
        try insert(with: &writer)
        try update(with: &writer) { !$0.movesUniqueValue }
        try link(with: writer)
        try clearReferences(with: writer)
        if let first = vanished.first {
            throw ModelKitError.saveConflict(
                entity: first.entity.name,
                identifiers: vanished.filter { $0.entity === first.entity }.map {
                    PersistentIdentifier(scope: store.identity.scope(for: $0.entity), key: .row($0.key))
                })
        }
        return keys
    }

    /// The change the commit announces and publishes.
    func change(keys: [Int64]) -> StoreChange {
        func byEntity(_ rows: some Sequence<(Schema.Entity, Int64)>) -> [String: [Int64]] {
            var grouped: [String: [Int64]] = [:]
            var run: (entity: Schema.Entity, keys: [Int64])?
            for (entity, key) in rows {
                if let current = run, current.entity !== entity {
                    grouped[current.entity.name, default: []] += current.keys
                    run = nil
                }
                if run == nil { run = (entity, []) }
                run!.keys.append(key)
            }
            if let run { grouped[run.entity.name, default: []] += run.keys }
            return grouped
        }
        return StoreChange(
            inserted: byEntity(zip(plan.inserts.lazy.map(\.entity), keys)),
            updated: byEntity(plan.updates.lazy.map { ($0.entity, $0.key) }),
            deleted: byEntity(plan.deletes.lazy.map { ($0.entity, $0.key) }),
            origin: ObjectIdentifier(store))
    }

    // MARK: Steps

    private mutating func insert(with writer: inout RowWriter) throws {
        // Entities whose rows go in multi-row upserts: a key reserved for one of their rows is
        // the row's only once the upsert says it inserted it.
        var upserting: [Schema.Entity] = []
        if store.dialect.batching.inserts {
            for (entity, count) in plan.inserts.counts {
                try writer.expectInserts(count, of: entity)
                if writer.upserts(entity) { upserting.append(entity) }
            }
        }
        func isSettled(_ target: Int) -> Bool { upserting.isEmpty || !upserting.contains { $0 === plan.inserts[target].entity } }
        keys.reserveCapacity(plan.inserts.count)
        var references = plan.insertReferences.startIndex
        var later: [(insert: Int, reference: SavePlan.Reference)] = []
        for (place, insert) in plan.inserts.enumerated() {
            let first = references
            while references < plan.insertReferences.endIndex, plan.insertReferences[references].insert == place { references += 1 }
            let own = plan.insertReferences[first..<references]
            for (_, reference) in own where reference.target >= place || !isSettled(reference.target) {
                // The target's key is not known yet, or is the key reserved for an upsert that
                // may take a stored row's.
                later.append((place, reference))
            }
            let key = try writer.insert(insert.entity) { column in
                if !own.isEmpty,
                    let (_, reference) = own.first(where: { $0.reference.column == column && $0.reference.target < place && isSettled($0.reference.target) })
                {
                    return .integer(keys[reference.target])
                }
                return try insert.values(column)
            }
            keys.append(key)
        }
        let upserted = try writer.finishInserts()
        if !upserted.isEmpty {
            for place in keys.indices {
                if let stored = upserted[RowKey(entity: plan.inserts[place].entity, rowID: keys[place])] { keys[place] = stored }
            }
        }
        for (place, reference) in later {
            try writer.setReference(
                of: plan.inserts[place].entity, rowID: keys[place], column: reference.column, to: .integer(keys[reference.target]))
        }
    }

    private mutating func update(with writer: inout RowWriter, where included: (SavePlan.Update) -> Bool) throws {
        var held: [(entity: Schema.Entity, key: Int64)] = []
        for update in plan.updates where included(update) {
            let found = try writer.update(update.entity, rowID: update.key, changed: update.changed) { column in
                if let reference = update.references.first(where: { $0.column == column }) { return .integer(keys[reference.target]) }
                return try update.values(column)
            }
            if !found { held.append((update.entity, update.key)) }
        }
        let gone = try writer.finishUpdates()
        vanished += held + gone
    }

    private func link(with writer: RowWriter) throws {
        for links in plan.links {
            let owner = key(of: links.owner)
            switch links.change {
            case .replaceAll(let targets):
                try writer.unlinkAll(in: links.table, owner: owner)
                try writer.relink(in: links.table, targetColumn: links.targetColumn, owner: owner, linking: keys(of: targets), unlinking: [])
            case .match(let targets):
                let current = keys(of: targets)
                let stored = try writer.linkedTargets(in: links.table, targetColumn: links.targetColumn, owner: owner)
                try writer.relink(
                    in: links.table, targetColumn: links.targetColumn, owner: owner,
                    linking: current.subtracting(stored), unlinking: stored.subtracting(current))
            case .apply(let linking, let unlinking):
                try writer.relink(
                    in: links.table, targetColumn: links.targetColumn, owner: owner, linking: keys(of: linking), unlinking: keys(of: unlinking))
            }
        }
    }

    private mutating func delete(with writer: inout RowWriter) throws {
        for delete in plan.deletes where try !writer.delete(delete.entity, rowID: delete.key) {
            vanished.append((delete.entity, delete.key))
        }
    }

    private func clearReferences(with writer: RowWriter) throws {
        for delete in plan.deletes { try writer.clearReferences(to: delete.key, of: delete.entity) }
        for delete in plan.deletes { try writer.checkRequiredReferences(to: delete.key, of: delete.entity) }
    }

    // MARK: Keys

    private func key(of row: SavePlan.Row) -> Int64 {
        switch row {
        case .stored(let key): key
        case .inserted(let place): keys[place]
        }
    }

    private func keys(of rows: [SavePlan.Row]) -> Set<Int64> {
        Set(rows.map(key(of:)))
    }
}

extension ModelContext {
    /// Loads the named relationships of `models` in batches: one query per relationship (per
    /// 10,000 models) rather than one per model. Relationships already loaded are left alone.
    func prefetch<T: PersistentModel>(_ keyPaths: [PartialKeyPath<T>], of models: [T]) throws {
        let entity = try entity(for: T.self)
        for keyPath in keyPaths {
            guard let column = entity.column(for: keyPath), let relationship = entity.relationshipsByColumn[column] else { continue }
            let owners: [any PersistentModel] = models.filter { $0._$modelKit.hasFault(at: column) }
            for start in stride(from: 0, to: owners.count, by: 10_000) {
                try prefetch(relationship, of: Array(owners[start..<min(start + 10_000, owners.count)]))
            }
        }
    }

    private func prefetch(_ relationship: RelationshipInfo, of owners: [any PersistentModel]) throws {
        var related: [Int64: [any PersistentModel]] = [:]
        if relationship.isToMany {
            let keys = owners.compactMap { $0._$modelKit.rowID }
            let sql = prefetchSelect(relationship, owners: keys)
            let room = Self.prefetchRoom(
                owners: keys.count, lastModelsPerOwner: relationship.prefetchedModelsPerOwner.load(ordering: .relaxed))
            registered.reserve(room, of: relationship.target.rootIdentifier)
            let registeredBefore = registered.count
            // Rows through a foreign key come ordered by owner: each owner's models are one run,
            // added at once (through a join table, runs are shorter).
            let (tags, models) = try taggedModels(of: relationship.target, sql: sql)
            // The models the map gained, not the rows: through a join table, owners share targets.
            let added = registered.count - registeredBefore
            if !keys.isEmpty { relationship.prefetchedModelsPerOwner.store((added << 10) / keys.count, ordering: .relaxed) }
            related.reserveCapacity(owners.count)
            var start = tags.startIndex
            while start < tags.endIndex {
                let owner = tags[start]
                var end = start + 1
                while end < tags.endIndex, tags[end] == owner { end += 1 }
                // A run copied at once, sized once.
                related[owner, default: []] += models[start..<end]
                start = end
            }
        } else {
            let keys = Set(owners.compactMap { owner -> Int64? in
                if case .toOne(let key)? = owner._$modelKit.faults?[relationship.column] { return key }
                return nil
            })
            let sql = relatedSelect(relationship, keys: Array(keys))
            for model in try models(of: relationship.target, sql: sql) {
                related[model._$modelKit.rowID!] = [model]
            }
        }
        for owner in owners {
            let storage = owner._$modelKit
            guard let fault = storage.takeFault(at: relationship.column) else { continue }
            let key: Int64? = switch fault {
            case .toOne(let key): key
            case .toMany: storage.rowID
            case .unfetched: nil  // only ever at an attribute's column
            }
            assign(loaded: key.flatMap { related[$0] } ?? [], to: relationship, of: owner)
        }
    }

    /// The models a to-many's prefetch for `owners` makes room for at once: as many an owner as
    /// the last prefetch added (`lastModelsPerOwner`, in 1/1024ths), but at most 64 an owner and
    /// 2^20 in all, so that a guess from a skewed prefetch costs at most about 1.3 KiB of table an
    /// owner (16-byte slots, kept under three quarters full), and 22 MB in all.
    static func prefetchRoom(owners: Int, lastModelsPerOwner: Int) -> Int {
        min((owners * min(lastModelsPerOwner, 64 << 10)) >> 10, 1 << 20)
    }

    /// Selects a to-many's targets for the given owners, each row tagged with its owner's key in
    /// an extra last column.
    private func prefetchSelect(_ relationship: RelationshipInfo, owners: [Int64]) -> SQL {
        let dialect = container.store(for: relationship.target).dialect
        return SQL(text: RelationshipSQL.prefetch(relationship, dialect: dialect), bindings: [.keyArray(owners)])
    }

    /// The models `sql` selects, and beside them the integer in the statement's last column; two
    /// arrays rather than one of pairs, so that a run of models is copied as one block.
    private func taggedModels(of entity: Schema.Entity, sql: SQL) throws -> (tags: [Int64], models: [any PersistentModel]) {
        func load<T: PersistentModel>(_ type: T.Type) throws -> (tags: [Int64], models: [any PersistentModel]) {
            try run(on: entity) {
                var tags: [Int64] = []
                var models: [any PersistentModel] = []
                let refreshing = isBehindStore
                let tag = Int32(entity.sql.selectedColumnCount)
                try reader(for: entity).select(sql, through: { ModelRow(statement: $0, entity: entity, context: self) }) { row in
                    models.append(try materialize(T.self, row: row, refreshing: refreshing))
                    tags.append(row.statement.int64(at: tag))
                }
                return (tags, models)
            }
        }
        return try load(entity.type)
    }
}

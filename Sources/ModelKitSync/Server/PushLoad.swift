import ModelKit

/// Reads what a push needs from the server's store into a ``PushSnapshot``: the identifiers it
/// names (merged ones resolved), the rows they stand for with their values and clocks, and the
/// rows holding the unique values its rows set. Reads in batches: a few queries per entity, not
/// per row.
struct PushLoad {
    let schema: SyncSchema
    let context: ModelContext
    let ids: SyncIDs
    let values: FieldValues
    /// The models of the rows read, by identifier, for the push's writes.
    private(set) var models: [String: any PersistentModel] = [:]

    init(schema: SyncSchema, context: ModelContext) {
        self.schema = schema
        self.context = context
        ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        values = FieldValues(schema: schema, ids: ids)
    }

    mutating func snapshot(of changes: [SyncChange]) throws -> PushSnapshot {
        var snapshot = PushSnapshot()
        snapshot.textHoldsNUL = try context.replicaRead { $0.dialect.values.textHoldsNUL }
        let mentioned = Array(Set(changes.flatMap { change in [change.id] + change.fields.values.flatMap(\.mentionedIDs) }))
        try context.replicaRead { sql in
            for chunk in mentioned.chunked(500) {
                for row in try sql.rows(SyncTables.selectMerged(count: chunk.count), chunk.map { .text($0) }) {
                    if case .text(let gid) = row[0], case .text(let target) = row[1] { snapshot.aliases[gid] = target }
                }
            }
        }
        try ids.load(gids: mentioned.map { snapshot.aliases[$0] ?? $0 })
        try read(Array(ids.byGid.values), into: &snapshot)

        // The rows holding the unique values of the pushed rows, as they will be.
        for (name, group) in Dictionary(grouping: changes.filter { !$0.deleted }, by: \.entity) {
            guard let entity = schema.entities[name], !entity.uniques.isEmpty else { continue }
            for unique in entity.uniques {
                var wanted = Set<[SyncValue]>()
                for change in group {
                    let current = snapshot.rows[snapshot.aliases[change.id] ?? change.id]?.values
                    let tuple = unique.map { change.fields[$0]?.value ?? current?[$0] ?? .null }
                    if !tuple.contains(.null) { wanted.insert(tuple) }
                }
                try readOwners(of: unique, in: entity, values: Array(wanted), into: &snapshot)
            }
        }
        return snapshot
    }

    /// Reads `rows`' models and fields into the snapshot.
    private mutating func read(_ rows: [SyncIDs.Row], into snapshot: inout PushSnapshot) throws {
        for (name, group) in Dictionary(grouping: rows.filter { snapshot.rows[$0.gid] == nil }, by: \.entity) {
            guard let entity = schema.entities[name] else { continue }
            let found = try entity.models(of: group, in: context)
            for row in group {
                var values: [String: SyncValue]?
                if let model = found[row.key] {
                    models[row.gid] = model
                    values = try self.values.values(of: model, entity, assigning: true)
                }
                snapshot.rows[row.gid] = PushSnapshot.Row(entity: name, version: row.version, values: values, clocks: row.fields)
            }
        }
    }

    /// Reads the rows holding `tuples` of `unique`'s properties, and records their owners.
    private mutating func readOwners(of unique: [String], in entity: SyncSchema.Entity, values tuples: [[SyncValue]], into snapshot: inout PushSnapshot) throws {
        let owners = try entity.models(holding: tuples, of: unique, in: context)
        var rows: [SyncIDs.Row] = []
        for model in owners {
            guard let gid = try ids.gid(of: model, assigning: true), let row = ids.byGid[gid] else { continue }
            rows.append(row)
        }
        try read(rows, into: &snapshot)
        for row in rows {
            guard let owner = snapshot.rows[row.gid], let values = owner.values, let ownerEntity = schema.entities[owner.entity] else { continue }
            let tuple = unique.map { values[$0] ?? .null }
            snapshot.owners[UniqueValue(root: ownerEntity.root, properties: unique, values: tuple)] = row.gid
        }
    }
}

extension Array {
    /// The array in consecutive pieces of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

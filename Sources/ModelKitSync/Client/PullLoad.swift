import ModelKit

/// Reads what a page of server rows needs from the device's store into a ``PullSnapshot``: the
/// rows it names and the rows their relationships and bases hold (merged ones under the names
/// the server gave them), the page's waiting fields, and the waiting values its rows settle.
/// Reads in batches: a few queries per entity, not per row.
struct PullLoad {
    let schema: SyncSchema
    let context: ModelContext
    let ids: SyncIDs
    let values: FieldValues
    /// The models of the rows read, by identifier, for the page's writes.
    private(set) var models: [String: any PersistentModel] = [:]
    /// The page's rows and the rows of the waiting values it settles: those whose values the
    /// planner compares, where the other rows need only be known present.
    private(set) var pageIDs: Set<String> = []

    init(schema: SyncSchema, context: ModelContext) {
        self.schema = schema
        self.context = context
        ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        values = FieldValues(schema: schema, ids: ids)
    }

    /// The snapshot for `rows`. `arrivals` are rows the device has now under a name the server
    /// gave them (a merge): values waiting for them are tried again, as for the page's own rows.
    mutating func snapshot(of rows: [SyncChange], arrivals: [String]) throws -> PullSnapshot {
        var snapshot = PullSnapshot()
        let pageIDs = rows.map(\.id)
        try context.replicaRead { sql in
            for chunk in pageIDs.chunked(500) {
                for row in try sql.rows(SyncTables.selectWaitingFields(count: chunk.count), chunk.map { .text($0) }) {
                    if case .text(let gid) = row[0], case .text(let property) = row[1] { snapshot.waitingFields.insert(PullSnapshot.key(gid, property)) }
                }
            }
            for chunk in (pageIDs + arrivals).chunked(500) {
                for row in try sql.rows(SyncTables.selectAwaiting(count: chunk.count), chunk.map { .text($0) }) {
                    guard case .text(let gid) = row[0], case .text(let property) = row[1], case .text(let json) = row[2], case .text(let clock) = row[3]
                    else { continue }
                    snapshot.awaited.append(PullSnapshot.Waiting(gid: gid, property: property, value: try SyncJSON.value(json), clock: clock))
                }
            }
        }
        try ids.load(gids: pageIDs + rows.flatMap { $0.fields.values.flatMap(\.value.referencedIDs) } + snapshot.awaited.flatMap { [$0.gid] + $0.value.referencedIDs })
        // The rows the page's bases hold, to tell a row deleted here from a local edit, under
        // the names the server gave them.
        let baseIDs = pageIDs.flatMap { ids.byGid[$0]?.fields.entries.values.flatMap { $0.base?.referencedIDs ?? [] } ?? [] }
        try ids.loadAliases(of: baseIDs)
        try ids.load(gids: baseIDs.map { ids.aliases[$0] ?? $0 })
        snapshot.aliases = ids.aliases
        self.pageIDs = Set(pageIDs + snapshot.awaited.map(\.gid))
        for (name, group) in Dictionary(grouping: ids.byGid.values, by: \.entity) {
            guard let entity = schema.entities[name] else { continue }
            let found = try entity.models(of: group, in: context)
            for row in group {
                let model = found[row.key]
                if let model { models[row.gid] = model }
                let rowValues = try model.map { model in self.pageIDs.contains(row.gid) ? try values.values(of: model, entity, assigning: true) : [:] }
                snapshot.rows[row.gid] = PullSnapshot.Row(entity: name, deleted: row.deleted, values: rowValues, record: row.fields)
            }
        }
        return snapshot
    }
}

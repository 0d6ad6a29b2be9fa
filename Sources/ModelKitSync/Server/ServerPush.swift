import Foundation
import ModelKit

/// One push, applied on the server: every change in one save, with the sync tables, all or
/// nothing. Fields resolve by the server's rules against the server's current values; rows read
/// before the save are checked unchanged when it commits (their version), and the push is
/// applied again from the start if another instance changed one meanwhile.
struct ServerPush {
    let server: SyncServer
    let request: SyncPushRequest

    /// Raised inside the save when a row changed since it was read: the push starts again.
    private struct RowMoved: Error {}

    private static let attempts = 16

    func apply() throws -> SyncPushResponse {
        var lastError: (any Error)?
        for _ in 0..<Self.attempts {
            do {
                return try attempt()
            } catch is RowMoved {
                lastError = nil
            } catch let error where SyncFailures.isConcurrentWrite(error) {
                // Another instance applying the same push, or creating the same row, committed
                // first: the next attempt reads what it wrote.
                lastError = error
            }
        }
        throw SyncError(
            .serverFailed,
            "the push kept meeting concurrent changes of the same rows and was not applied\(lastError.map { ": \($0)" } ?? ""); sync again")
    }

    private func attempt() throws -> SyncPushResponse {
        let device = request.envelope.device
        let context = ModelContext(server.container)
        context.autosaveEnabled = false
        context.author = SyncServer.author(of: device)
        let schema = server.schema
        if let stored = try context.replicaRead({ try $0.rows(SyncTables.selectPush, [.text(device), .text(request.id)]).first?.first }),
            case .text(let json) = stored
        {
            return try SyncJSON.decoder.decode(SyncPushResponse.self, from: Data(json.utf8))
        }
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        let values = FieldValues(schema: schema, ids: ids)

        // Identifiers merged into others earlier stand for those.
        var aliases: [String: String] = [:]
        let mentioned = Set(request.changes.flatMap { change in [change.id] + change.fields.values.flatMap(\.mentionedIDs) })
        try context.replicaRead { sql in
            for gid in mentioned {
                if case .text(let target)? = try sql.rows(SyncTables.selectMerged, [.text(gid)]).first?.first { aliases[gid] = target }
            }
        }
        func canonical(_ gid: String) -> String { aliases[gid] ?? gid }
        try ids.load(gids: mentioned.map(canonical))

        var created: [String: (model: any PersistentModel, entity: SyncSchema.Entity)] = [:]
        var createdOrder: [String] = []
        var existing: [(gid: String, model: any PersistentModel, entity: SyncSchema.Entity, change: SyncChange)] = []
        /// The rows changed, each with the version read and its field clocks as they become.
        var records: [String: (version: Int64?, fields: FieldRecord)] = [:]
        var deletes: [String] = []
        var tombstones: [String: SyncChange] = [:]
        var accepted = 0
        var conflicts = 0

        func resolve(_ gid: String) throws -> (any PersistentModel)? {
            let gid = canonical(gid)
            if let made = created[gid] { return made.model }
            try ids.load(gids: [gid])
            guard let row = ids.byGid[gid], !row.deleted, let entity = schema.entities[row.entity] else { return nil }
            return try context.model(of: entity.entity, rowKey: row.key)
        }

        // Rows first: what exists, what is new, what goes.
        for change in request.changes {
            let gid = canonical(change.id)
            let entity = try schema.entity(named: change.entity)
            if let row = ids.byGid[gid] {
                guard !row.deleted, let model = try context.model(of: entity.entity, rowKey: row.key) else {
                    // Deleted on the server (or by a cascade): deletes win over edits.
                    tombstones[gid] = SyncChange(entity: change.entity, id: gid, deleted: true)
                    if change.deleted { accepted += 1 }
                    continue
                }
                accepted += 1
                if change.deleted {
                    context.delete(model)
                    deletes.append(gid)
                    ids.markDeleted(gid)
                    tombstones[gid] = SyncChange(entity: change.entity, id: gid, deleted: true)
                } else {
                    existing.append((gid, model, entity, change))
                    records[gid] = (row.version, row.fields)
                }
            } else if change.deleted {
                // Never stored here: nothing to delete.
                accepted += 1
                tombstones[gid] = SyncChange(entity: change.entity, id: gid, deleted: true)
            } else if created[gid] == nil {
                let stored = entity.storedValues(of: change) { ids.byGid[canonical($0)]?.key }
                let model = try context.makeModel(of: entity.entity, values: stored)
                context.insert(model)
                created[gid] = (model, entity)
                createdOrder.append(gid)
                accepted += 1
                var fields = FieldRecord()
                for (name, field) in change.fields where entity.fieldsByName[name] != nil { fields[name] = .init(base: nil, clock: field.clock) }
                records[gid] = (nil, fields)
            }
        }

        // Then fields: relationships of new rows, and every pushed field of rows that exist.
        let pushedRows = Dictionary(request.changes.map { (canonical($0.id), $0) }, uniquingKeysWith: { _, last in last })
        for gid in createdOrder {
            let (model, entity) = created[gid]!
            let change = pushedRows[gid]!
            for field in entity.fields where field.isRelationship {
                guard let value = change.fields[field.name]?.value else { continue }
                try values.assign(value, to: model, field, in: entity, resolve: resolve)
            }
        }
        for (gid, model, entity, change) in existing {
            let serverClocks = records[gid]!.fields
            for (name, pushed) in change.fields.sorted(by: { $0.key < $1.key }) {
                guard let field = entity.fieldsByName[name] else {
                    throw SyncError(.schemaMismatch, "\(entity.name) has no synced property \(name)")
                }
                let current = try values.value(of: model, field, assigning: true)
                let serverClock = serverClocks[name].flatMap { HybridLogicalClock($0.clock) } ?? .zero
                let incomingClock = HybridLogicalClock(pushed.clock) ?? .zero
                let resolved: SyncValue
                let clock: HybridLogicalClock
                if field.isToMany {
                    // Sets merge: what the device added and removed since its base.
                    var set = Set(current.referencedIDs)
                    if pushed.added == nil, pushed.removed == nil {
                        set.formUnion(pushed.value.referencedIDs.map(canonical))
                    } else {
                        set.formUnion((pushed.added ?? []).map(canonical))
                        set.subtract((pushed.removed ?? []).map(canonical))
                    }
                    resolved = .references(set.sorted())
                    clock = max(serverClock, incomingClock)
                } else if pushed.base.map({ $0.canonicalized(canonical) }) == current || (pushed.base == nil && serverClock == .zero) {
                    // The device edited what the server has: no conflict.
                    resolved = pushed.value.canonicalized(canonical)
                    clock = incomingClock
                } else if current == pushed.value.canonicalized(canonical) {
                    resolved = current
                    clock = max(serverClock, incomingClock)
                } else {
                    conflicts += 1
                    switch server.policies.rule(for: name, of: entity.lineage) {
                    case .lastEditWins:
                        (resolved, clock) = incomingClock > serverClock ? (pushed.value.canonicalized(canonical), incomingClock) : (current, serverClock)
                    case .serverWins:
                        (resolved, clock) = (current, serverClock)
                    case .custom(let rule):
                        resolved = try rule(pushed.base, current, pushed.value)
                        clock = max(serverClock, incomingClock)
                    }
                }
                if resolved != current { try values.assign(resolved, to: model, field, in: entity, resolve: resolve) }
                records[gid]!.fields[name] = .init(base: nil, clock: clock.description)
            }
        }

        // The answer: each pushed row as the server now has it.
        var rows: [SyncChange] = []
        var answered = Set<String>()
        for change in request.changes {
            let gid = canonical(change.id)
            guard answered.insert(gid).inserted else { continue }
            if let tombstone = tombstones[gid], created[gid] == nil {
                rows.append(tombstone)
                continue
            }
            let entity = try schema.entity(named: change.entity)
            guard let model = try created[gid]?.model ?? resolve(gid) else { continue }
            let fieldValues = try values.values(of: model, entity, assigning: true)
            let clocks = records[gid]?.fields ?? ids.byGid[gid]?.fields ?? FieldRecord()
            rows.append(
                SyncChange(
                    entity: change.entity, id: gid,
                    fields: fieldValues.reduce(into: [:]) { fields, field in
                        fields[field.key] = SyncField(value: field.value, clock: clocks[field.key]?.clock ?? HybridLogicalClock.zero.description)
                    }))
        }
        let pushedIDs = Set(request.changes.map(\.id))
        var merged = aliases.filter { pushedIDs.contains($0.key) }

        var answer = SyncPushResponse(accepted: 0, conflicts: 0, rows: [], merged: [:])
        try context.save { sql in
            for (gid, record) in records {
                guard let version = record.version else { continue }
                if try sql.rows(SyncTables.updateFieldsAtVersion, [record.fields.stored, .text(gid), .integer(version)]).isEmpty {
                    throw RowMoved()
                }
            }
            for gid in createdOrder {
                let model = created[gid]!.model
                guard let key = model._rowKey else { continue }
                let entityName = model.persistentModelID.entityName
                let inserted = try sql.rows(
                    SyncTables.insertID, [.text(gid), .text(entityName), .integer(key), .integer(0), records[gid]!.fields.stored])
                if inserted.isEmpty {
                    // A unique attribute's value was stored already: the insert updated that row,
                    // which keeps its identifier.
                    let owner = try sql.rows("SELECT gid FROM \(SyncTables.ids) WHERE entity = ? AND row_key = ?", [.text(entityName), .integer(key)])
                    guard case .text(let target)? = owner.first?.first else { throw RowMoved() }
                    try sql.run(SyncTables.insertMerged, [.text(gid), .text(target)])
                    merged[gid] = target
                }
            }
            try ids.recordAssigned(in: sql)
            for gid in deletes { try sql.run(SyncTables.markDeleted, [.text(gid)]) }
            answer = SyncPushResponse(accepted: accepted, conflicts: conflicts, rows: rows.map { $0.renamingIDs(merged) }, merged: merged)
            let json = String(decoding: try SyncJSON.encoder.encode(answer), as: UTF8.self)
            try sql.run(SyncTables.insertPush, [.text(device), .text(request.id), .text(json)])
        }
        return answer
    }
}

extension SyncServer {
    /// The history author of the saves that apply `device`'s pushes.
    static func author(of device: String) -> String { "\(SyncClient.author):\(device)" }
}

extension SyncField {
    /// The identifiers the field mentions.
    var mentionedIDs: [String] {
        value.referencedIDs + (base?.referencedIDs ?? []) + (added ?? []) + (removed ?? [])
    }
}

extension SyncValue {
    /// The identifiers of the rows a relationship value holds.
    var referencedIDs: [String] {
        switch self {
        case .reference(let gid): [gid]
        case .references(let gids): gids
        default: []
        }
    }

    /// The value with identifiers replaced by `canonical`'s.
    func canonicalized(_ canonical: (String) -> String) -> SyncValue {
        switch self {
        case .reference(let gid): .reference(canonical(gid))
        case .references(let gids): .references(gids.map(canonical).sorted())
        default: self
        }
    }
}

extension SyncChange {
    /// The change with the identifiers `renamed` lists replaced.
    func renamingIDs(_ renamed: [String: String]) -> SyncChange {
        guard !renamed.isEmpty else { return self }
        var change = self
        change.id = renamed[id] ?? id
        change.fields = fields.mapValues { field in
            var field = field
            field.value = field.value.canonicalized { renamed[$0] ?? $0 }
            return field
        }
        return change
    }
}

import Foundation
import ModelKit

/// Rows from the server applied to the device, in one save by ``SyncClient/author``, with the
/// sync tables. A field the device changed since its base (an edit not pushed yet, or made while
/// the sync ran) keeps the device's value; its base becomes the server's, and the next push
/// resolves it. Deletes win: a deleted row goes, edited or not. A relationship to rows that have
/// not arrived waits in ``SyncTables/waiting`` until they do.
struct ClientApply {
    let client: SyncClient

    /// Raised inside the save when a local save committed after the rows were read: the apply
    /// starts again from the new state, so that the local edit is neither lost nor overwritten.
    private struct LocalSaveRaced: Error {}

    /// Applies `rows`, renaming `merged` identifiers first. `pushed` holds the push these rows
    /// answer, if they do; `download`, the number of the full download they are part of.
    /// `finish` runs in the same transaction. Returns how many rows changed on the device.
    @discardableResult
    func apply(
        _ rows: [SyncChange], merged: [String: String], pushed: [String: SyncChange] = [:], download: Int64? = nil,
        finish: (StoreSQL) throws -> Void
    ) throws -> Int {
        if !merged.isEmpty {
            try ModelContext(client.container).replicaWrite { sql in
                for (old, new) in merged { try sql.run(SyncTables.renameID, [.text(new), .text(old)]) }
            }
        }
        for _ in 0..<32 {
            do {
                return try attempt(rows, pushed: pushed.isEmpty ? [:] : pushed.reduce(into: [:]) { $0[merged[$1.key] ?? $1.key] = $1.value }, download: download, finish: finish)
            } catch is LocalSaveRaced {
                continue
            }
        }
        throw SyncError(.transportFailed, "local saves kept racing the sync; sync again when the store is quieter: nothing was lost")
    }

    private func attempt(
        _ rows: [SyncChange], pushed: [String: SyncChange], download: Int64?, finish: (StoreSQL) throws -> Void
    ) throws -> Int {
        let schema = client.schema
        let context = ModelContext(client.container)
        context.autosaveEnabled = false
        context.author = SyncClient.author
        let seenLocal = try context.replicaRead { try $0.newestHistoryToken(notBy: SyncClient.author) }
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        let values = FieldValues(schema: schema, ids: ids)
        try ids.load(gids: rows.flatMap { [$0.id] + $0.fields.values.flatMap(\.value.referencedIDs) })
        let waited = try context.replicaRead { try $0.rows(SyncTables.selectWaiting) }
        let waitingBefore = WaitingFields(rows: waited)
        let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })

        var created: [String: (model: any PersistentModel, entity: SyncSchema.Entity)] = [:]
        var createdOrder: [String] = []
        var updates: [(change: SyncChange, model: any PersistentModel, entity: SyncSchema.Entity)] = []
        var deletes: [String] = []
        /// The field records written: each row's bases and clocks as they become.
        var records: [String: FieldRecord] = [:]
        var waiting: [(gid: String, property: String, value: SyncValue, clock: String)] = []
        var resolvedWaiting: [(gid: String, property: String)] = []
        var changed = 0

        func resolve(_ gid: String) throws -> (any PersistentModel)? {
            if let made = created[gid] { return made.model }
            guard let row = ids.byGid[gid] ?? { try? ids.load(gids: [gid]); return ids.byGid[gid] }(), !row.deleted,
                let entity = schema.entities[row.entity]
            else { return nil }
            return try context.model(of: entity.entity, rowKey: row.key)
        }
        func setBase(_ gid: String, _ property: String, _ value: SyncValue, _ clock: String) {
            records[gid, default: ids.byGid[gid]?.fields ?? FieldRecord()][property] = .init(base: value, clock: clock)
        }

        for change in rows {
            let entity = try schema.entity(named: change.entity)
            if let row = ids.byGid[change.id] {
                if change.deleted {
                    if !row.deleted, let model = try context.model(of: entity.entity, rowKey: row.key) {
                        context.delete(model)
                        changed += 1
                    }
                    deletes.append(change.id)
                } else if !row.deleted, let model = try context.model(of: entity.entity, rowKey: row.key) {
                    updates.append((change, model, entity))
                    records[change.id] = row.fields
                }
                // Otherwise deleted here, and the delete is on its way to the server: it wins.
            } else if !change.deleted, created[change.id] == nil {
                let stored = entity.storedValues(of: change) { ids.byGid[$0]?.key }
                let model = try context.makeModel(of: entity.entity, values: stored)
                context.insert(model)
                created[change.id] = (model, entity)
                createdOrder.append(change.id)
                records[change.id] = FieldRecord()
                changed += 1
            }
        }

        for gid in createdOrder {
            let (model, entity) = created[gid]!
            let change = byID[gid]!
            for field in entity.fields {
                guard let pulled = change.fields[field.name] else { continue }
                if field.isRelationship, try !values.assign(pulled.value, to: model, field, in: entity, resolve: resolve) {
                    waiting.append((gid, field.name, pulled.value, pulled.clock))
                } else {
                    setBase(gid, field.name, pulled.value, pulled.clock)
                }
            }
        }
        for (change, model, entity) in updates {
            let known = ids.byGid[change.id]?.fields ?? FieldRecord()
            var rowChanged = false
            for (name, pulled) in change.fields {
                guard let field = entity.fieldsByName[name] else { continue }
                let current = try values.value(of: model, field, assigning: true)
                let isWaiting = waitingBefore.contains(change.id, name)
                // A field waiting for rows was no local edit when it began to wait, and is not
                // pushed while it waits: the server's value is the one to take.
                let localEdit =
                    if isWaiting {
                        false
                    } else if let sent = pushed[change.id]?.fields[name] {
                        current != sent.value
                    } else {
                        known[name]?.base.map { current != $0 } ?? false
                    }
                if !localEdit, current != pulled.value {
                    guard try values.assign(pulled.value, to: model, field, in: entity, resolve: resolve) else {
                        waiting.append((change.id, name, pulled.value, pulled.clock))
                        continue
                    }
                    rowChanged = true
                }
                setBase(change.id, name, pulled.value, pulled.clock)
                if isWaiting { resolvedWaiting.append((change.id, name)) }
            }
            if rowChanged { changed += 1 }
        }

        // Relationships that waited for rows: those whose rows are all here now.
        for row in waited {
            guard case .text(let gid) = row[0], case .text(let name) = row[1], case .text(let json) = row[2], case .text(let clock) = row[3],
                byID[gid]?.fields[name] == nil, let model = try resolve(gid),
                let entity = schema.entities[model.persistentModelID.entityName], let field = entity.fieldsByName[name]
            else { continue }
            let value = try SyncJSON.value(json)
            if try values.assign(value, to: model, field, in: entity, resolve: resolve) {
                setBase(gid, name, value, clock)
                resolvedWaiting.append((gid, name))
            }
        }

        try context.save { sql in
            if try sql.newestHistoryToken(notBy: SyncClient.author) != seenLocal { throw LocalSaveRaced() }
            let seen: SQLValue = .integer(download ?? 0)
            for gid in createdOrder {
                let model = created[gid]!.model
                guard let key = model._rowKey else { continue }
                try sql.run(
                    SyncTables.insertID, [.text(gid), .text(model.persistentModelID.entityName), .integer(key), seen, records[gid]!.stored])
                records[gid] = nil
            }
            try ids.recordAssigned(in: sql)
            for gid in deletes { try sql.run(SyncTables.markDeleted, [.text(gid)]) }
            for (gid, record) in records { try sql.run(SyncTables.updateFields, [record.stored, seen, seen, .text(gid)]) }
            for (gid, property) in resolvedWaiting { try sql.run(SyncTables.deleteWaiting, [.text(gid), .text(property)]) }
            for (gid, property, value, clock) in waiting {
                try sql.run(SyncTables.upsertWaiting, [.text(gid), .text(property), .text(try SyncJSON.text(value)), .text(clock)])
            }
            // The device's clock moves past every reading it sees.
            // The wire form sorts as clocks compare: the largest string is the newest reading.
            let newest = rows.lazy.flatMap(\.fields.values).map(\.clock).max().flatMap(HybridLogicalClock.init)
            let own = try sql.state(ClientState.clock).flatMap(HybridLogicalClock.init) ?? .zero
            if let newest, newest > own {
                try sql.setState(ClientState.clock, HybridLogicalClock(millis: newest.millis, counter: newest.counter, node: client.device).description)
            }
            try finish(sql)
        }
        return changed
    }
}

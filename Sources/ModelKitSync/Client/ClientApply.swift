import Foundation
import ModelKit

/// Rows from the server applied to the device: loaded (``PullLoad``), decided by
/// ``PullPlanner``, and written in one save by ``SyncClient/author`` with the sync tables.
struct ClientApply {
    let client: SyncClient

    /// Raised inside the save when a local save committed after the rows were read: the apply
    /// starts again from the new state, so that the local edit is neither lost nor overwritten.
    private struct LocalSaveRaced: Error {}

    /// Applies `rows`, renaming `merged` identifiers first. `pushed` holds the push these rows
    /// answer, if they do, and `rejected` the identifiers it refused; `download`, the number of
    /// the full download they are part of. `finish` runs in the same transaction. Returns how
    /// many rows changed on the device.
    @discardableResult
    func apply(
        _ rows: [SyncChange], merged: [String: String], pushed: [String: SyncChange] = [:], rejected: Set<String> = [], download: Int64? = nil,
        finish: (StoreSQL) throws -> Void
    ) throws -> Int {
        let folded = try ClientMerge(client: client).apply(merged)
        // What was sent, under the names the server gave it. A row folded into another was
        // sent as another row than the device's: its fields are compared with their bases.
        let renamed = pushed.reduce(into: [String: SyncChange]()) { result, entry in
            guard !folded.contains(entry.key) else { return }
            let change = entry.value.renamingIDs(merged)
            result[change.id] = change
        }
        let rejected = Set(rejected.map { merged[$0] ?? $0 })
        do {
            return try retryingRaces {
                try attempt(rows, pushed: renamed, rejected: rejected, arrivals: Array(merged.values) + Array(merged.keys), download: download, finish: finish)
            }
        } catch let error where SyncFailures.isUniqueViolation(error) {
            return try applyOneByOne(rows, pushed: renamed, rejected: rejected, download: download, finish: finish)
        }
    }

    private func retryingRaces(_ body: () throws -> Int) throws -> Int {
        for _ in 0..<32 {
            do {
                return try body()
            } catch is LocalSaveRaced {
                continue
            }
        }
        throw SyncError(.transportFailed, "local saves kept racing the sync; sync again when the store is quieter: nothing was lost")
    }

    /// Applies rows that pass unique values between them (the server saw one row give up a value
    /// and another take it): one row a save, deletes first, in the server's order, each row
    /// that meets a value not yet given up tried again after the others. Rows that pass values
    /// round (a swap) take turns holding a stand-in value. The cursor moves with the last save.
    private func applyOneByOne(
        _ rows: [SyncChange], pushed: [String: SyncChange], rejected: Set<String>, download: Int64?, finish: (StoreSQL) throws -> Void
    ) throws -> Int {
        var pushed = pushed
        var changed = 0
        var remaining = rows.filter(\.deleted) + rows.filter { !$0.deleted }
        let page = Set(rows.map(\.id))
        for _ in 0...rows.count {
            var stuck: [SyncChange] = []
            var lastError: (any Error)?
            for row in remaining {
                do {
                    changed += try retryingRaces { try attempt([row], pushed: pushed, rejected: rejected, arrivals: [], download: download) { _ in } }
                } catch let error where SyncFailures.isUniqueViolation(error) {
                    stuck.append(row)
                    lastError = error
                }
            }
            if stuck.isEmpty {
                return changed + (try retryingRaces { try attempt([], pushed: [:], rejected: [], arrivals: [], download: download, finish: finish) })
            }
            if stuck.count == remaining.count {
                let waiting = pushed.isEmpty ? [] : try wait(stuck[0], forRowsOutside: page)
                if !waiting.isEmpty {
                    // The row applies without the values that wait, and keeps its stand-in.
                    for name in waiting {
                        stuck[0].fields[name] = nil
                        pushed[stuck[0].id]?.fields[name] = nil
                    }
                } else if try !standIn(for: stuck[0].id), let lastError {
                    throw lastError
                }
            }
            remaining = stuck
        }
        throw SyncError(.transportFailed, "the server's rows could not be applied in any order; sync again")
    }

    /// Raised when a row the server made has a unique value a local change gave another row:
    /// the sync pushes again, and the server merges or refuses the local change, before pulling.
    struct LocalChangesFirst: Error {}

    /// Makes sure no other row of the device holds a unique value the page's rows `written`
    /// take: one that holds it by a local change (not pushed yet, which the page keeps, in it or
    /// not) goes to the server first (``LocalChangesFirst``); one outside the page that holds it
    /// as the server last gave it (a full download brings rows in key order, not in the order
    /// values moved) takes a stand-in until its own page comes, and the apply starts again.
    private func makeRoom(for written: [SyncChange], pageIDs: Set<String>, ids: SyncIDs, values: FieldValues, in context: ModelContext) throws {
        var standIns: [String] = []
        for (name, group) in Dictionary(grouping: written, by: \.entity) {
            guard let entity = client.schema.entities[name], !entity.uniques.isEmpty else { continue }
            for unique in entity.uniques {
                let tuples = group.map { change in unique.map { change.fields[$0]?.value ?? .null } }.filter { !$0.contains(.null) }
                for holder in try entity.models(holding: tuples, of: unique, in: context) {
                    guard let holderEntity = client.schema.entities[holder.persistentModelID.entityName] else { continue }
                    // A row never pushed is a local change.
                    guard let gid = try ids.gid(of: holder, assigning: false) else { throw LocalChangesFirst() }
                    let bases = ids.byGid[gid]?.fields ?? FieldRecord()
                    let edited = try unique.contains { name in
                        try bases[name]?.base != values.value(of: holder, holderEntity.fieldsByName[name]!, assigning: false)
                    }
                    // A row of the page keeps a local edit too: the insert would be folded into
                    // it (a unique value's upsert), one row under two identifiers.
                    if edited { throw LocalChangesFirst() }
                    if pageIDs.contains(gid) { continue }
                    standIns.append(gid)
                }
            }
        }
        guard !standIns.isEmpty else { return }
        for gid in standIns { _ = try standIn(for: gid) }
        throw LocalSaveRaced()
    }

    /// For a push's answer: `change` cannot take unique values that rows outside the page hold
    /// here (as a rule by local changes made after the push left). Those changes go to the server next,
    /// which refuses or merges them, so the row keeps a stand-in meanwhile, and each such value
    /// waits in the sync tables for those rows: the page that brings one of them (or merges it
    /// into another) tries it again. (Kept as a stand-in with nothing waiting, it stayed so for
    /// good, the server having no newer change of the row to send.) Returns the properties that
    /// wait: none when no row outside the page holds the values.
    private func wait(_ change: SyncChange, forRowsOutside page: Set<String>) throws -> Set<String> {
        guard let (context, ids, entity, model, fields) = try storedRow(change.id) else { return [] }
        var waits: [(property: String, field: SyncField, holders: [String])] = []
        for unique in entity.uniques {
            let tuple = unique.map { change.fields[$0]?.value ?? .null }
            guard !tuple.contains(.null) else { continue }
            var holders: [String] = []
            for holder in try entity.models(holding: [tuple], of: unique, in: context) where holder.persistentModelID != model.persistentModelID {
                if let gid = try ids.gid(of: holder, assigning: true), !page.contains(gid) { holders.append(gid) }
            }
            guard !holders.isEmpty else { continue }
            for name in unique { if let field = change.fields[name] { waits.append((name, field, holders)) } }
        }
        guard !waits.isEmpty else { return [] }
        var record = fields
        _ = try standIns(for: Set(waits.map(\.property)), of: model, gid: change.id, entity: entity, ids: ids, record: &record)
        try context.save { sql, _ in
            try ids.recordAssigned(in: sql)
            try sql.run(SyncTables.updateFields, [record.stored, .integer(0), .integer(0), .text(change.id)])
            for wait in waits {
                try sql.run(SyncTables.upsertWaiting, [.text(change.id), .text(wait.property), .text(try SyncJSON.text(wait.field.value)), .text(wait.field.clock)])
                for holder in wait.holders { try sql.run(SyncTables.insertAwaited, [.text(holder), .text(change.id), .text(wait.property)]) }
            }
        }
        return Set(waits.map(\.property))
    }

    /// Gives the row `gid` a stand-in for each text value it holds of a unique attribute,
    /// as its base too (no local edit), freeing the values for the rows that take them. False
    /// when it holds none.
    private func standIn(for gid: String) throws -> Bool {
        guard let (context, ids, entity, model, fields) = try storedRow(gid) else { return false }
        var record = fields
        guard try !standIns(for: Set(entity.uniques.joined()), of: model, gid: gid, entity: entity, ids: ids, record: &record).isEmpty
        else { return false }
        try context.save { sql, _ in try sql.run(SyncTables.updateFields, [record.stored, .integer(0), .integer(0), .text(gid)]) }
        return true
    }

    /// The device's row `gid`, read for a write of the sync's own: a context the sync authors,
    /// the identifiers read, the row's entity, model and field record. Nil when the device has no
    /// model of it.
    private func storedRow(
        _ gid: String
    ) throws -> (context: ModelContext, ids: SyncIDs, entity: SyncSchema.Entity, model: any PersistentModel, fields: FieldRecord)? {
        let context = ModelContext(client.container)
        context.autosaveEnabled = false
        context.author = SyncClient.author
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        try ids.load(gids: [gid])
        guard let row = ids.byGid[gid], let entity = client.schema.entities[row.entity],
            let model = try context.model(of: entity.entity, rowKey: row.key)
        else { return nil }
        return (context, ids, entity, model, row.fields)
    }

    /// Gives `model`, the row `gid`, a stand-in for each text value it holds of the properties
    /// `names`, as the value's base in `record` too. Returns the properties given one.
    private func standIns(
        for names: Set<String>, of model: any PersistentModel, gid: String, entity: SyncSchema.Entity, ids: SyncIDs, record: inout FieldRecord
    ) throws -> Set<String> {
        let values = FieldValues(schema: client.schema, ids: ids)
        var replaced = Set<String>()
        for name in names {
            let field = entity.fieldsByName[name]!
            guard case .text(let text) = try values.value(of: model, field, assigning: false) else { continue }
            // An invisible word joiner and the row's identifier: no user's value.
            let standIn = SyncValue.text(text + "\u{2060}" + gid)
            try values.assign(standIn, to: model, field, in: entity) { _ in nil }
            record[name] = .init(base: standIn, clock: record[name]?.clock ?? HybridLogicalClock.zero.description)
            replaced.insert(name)
        }
        return replaced
    }

    /// One try at `rows`. `arrivals` are rows the device has now under a name the server gave
    /// (a merge): values waiting for them are tried again, as for the page's own rows.
    private func attempt(
        _ rows: [SyncChange], pushed: [String: SyncChange], rejected: Set<String>, arrivals: [String], download: Int64?,
        finish: (StoreSQL) throws -> Void
    ) throws -> Int {
        let schema = client.schema
        let context = ModelContext(client.container)
        context.autosaveEnabled = false
        context.author = SyncClient.author
        let seenLocal = try context.replicaRead { try $0.newestHistoryToken(notBy: SyncClient.author) }
        var load = PullLoad(schema: schema, context: context)
        let snapshot = try load.snapshot(of: rows, arrivals: arrivals)
        let ids = load.ids
        let values = load.values
        var models = load.models

        // A push's answer holds the rows the push sent: the server settled their values, and a
        // local change to push first could only wait behind the answer itself.
        if pushed.isEmpty {
            // Unique values that waited for their holders are written again too.
            let retried = snapshot.awaited.compactMap { entry -> SyncChange? in
                guard case .text = entry.value, let entity = snapshot.rows[entry.gid]?.entity else { return nil }
                return SyncChange(entity: entity, id: entry.gid, fields: [entry.property: SyncField(value: entry.value, clock: entry.clock)])
            }
            try makeRoom(for: rows.filter { !$0.deleted } + retried, pageIDs: load.pageIDs, ids: ids, values: values, in: context)
        }

        let plan = try PullPlanner(schema: schema).plan(rows, pushed: pushed, rejected: rejected, snapshot: snapshot)
        let seen: SQLValue = .integer(download ?? 0)

        if let inserts = try PullBulkInsert.inserts(of: plan, schema: schema) {
            try context.replicaInsert(inserts.map(\.insert)) { sql, keys in
                if try sql.newestHistoryToken(notBy: SyncClient.author) != seenLocal { throw LocalSaveRaced() }
                var values: [SQLValue] = []
                values.reserveCapacity(plan.creates.count * 5)
                var records = plan.records
                for ((insert, gids), keys) in zip(inserts, keys) {
                    let entity = SQLValue.text(insert.entity.name)
                    for (gid, key) in zip(gids, keys) {
                        values += [.text(gid), entity, .integer(key), seen, (records.removeValue(forKey: gid) ?? FieldRecord()).stored]
                    }
                }
                try SyncTables.insertIDs(values, in: sql)
                // The page's rows the device had unchanged: their bases, and the download that saw them.
                for (gid, record) in records { try sql.run(SyncTables.updateFields, [record.stored, seen, seen, .text(gid)]) }
                try ids.recordAssigned(in: sql)
                try close(rows, in: sql, finish: finish)
            }
            return plan.changed
        }

        // Write: new rows (their relationships once all are made), fields, deletes.
        // A row the load named (its identifier assigned as it read a relationship) may not be
        // among the models read: it is read when a write names it.
        let resolve: (String) throws -> (any PersistentModel)? = { gid in
            if let model = models[gid] { return model }
            guard let row = ids.byGid[gid], !row.deleted, let entity = schema.entities[row.entity],
                let model = try context.model(of: entity.entity, rowKey: row.key)
            else { return nil }
            models[gid] = model
            return model
        }
        for create in plan.creates {
            let entity = try schema.entity(named: create.entity)
            let model = try context.makeModel(of: entity.entity, values: entity.storedValues(of: create.values) { gid, target in
                models[gid].flatMap { schema.entity(named: $0.persistentModelID.entityName, isA: target) ? $0._rowKey : nil }
            })
            context.insert(model)
            models[create.gid] = model
        }
        for write in plan.creates + plan.updates {
            let entity = try schema.entity(named: write.entity)
            for (name, value) in write.values.sorted(by: { $0.key < $1.key }) {
                try values.assign(value, to: models[write.gid]!, entity.fieldsByName[name]!, in: entity, resolve: resolve)
            }
        }
        for gid in plan.deletes + plan.leaves {
            if let model = models[gid] { context.delete(model) }
        }

        try context.save { sql, inserted in
            if try sql.newestHistoryToken(notBy: SyncClient.author) != seenLocal { throw LocalSaveRaced() }
            var records = plan.records
            for create in plan.creates {
                guard let model = models[create.gid], let key = inserted.key(of: model) else { continue }
                if plan.restored.contains(create.gid) { try sql.run(SyncTables.deleteID, [.text(create.gid)]) }
                try sql.run(
                    SyncTables.insertID,
                    [.text(create.gid), .text(model.persistentModelID.entityName), .integer(key), seen, (records[create.gid] ?? FieldRecord()).stored])
                records[create.gid] = nil
            }
            try ids.recordAssigned(in: sql)
            for gid in plan.deletes {
                try sql.run(SyncTables.markDeleted, [.text(gid)])
                records[gid] = nil
            }
            for gid in plan.leaves {
                try SyncTables.forget(gid, in: sql)
                records[gid] = nil
            }
            for (gid, record) in records { try sql.run(SyncTables.updateFields, [record.stored, seen, seen, .text(gid)]) }
            for (gid, property) in plan.settled {
                try sql.run(SyncTables.deleteWaiting, [.text(gid), .text(property)])
                try sql.run(SyncTables.deleteAwaited, [.text(gid), .text(property)])
            }
            for (entry, missing) in plan.waiting {
                try sql.run(SyncTables.upsertWaiting, [.text(entry.gid), .text(entry.property), .text(try SyncJSON.text(entry.value)), .text(entry.clock)])
                try sql.run(SyncTables.deleteAwaited, [.text(entry.gid), .text(entry.property)])
                for target in missing { try sql.run(SyncTables.insertAwaited, [.text(target), .text(entry.gid), .text(entry.property)]) }
            }
            try close(rows, in: sql, finish: finish)
        }
        return plan.changed
    }

    /// The last writes of an apply, in its transaction: the device's clock moves past every
    /// reading `rows` hold (edits made before now were made before it saw them), then `finish`.
    private func close(_ rows: [SyncChange], in sql: StoreSQL, finish: (StoreSQL) throws -> Void) throws {
        // The wire form sorts as clocks compare: the largest string is the newest reading.
        if let newest = rows.lazy.flatMap(\.fields.values).map(\.clock).max().flatMap(HybridLogicalClock.init) {
            var log = try ClockLog.read(in: sql)
            let before = log
            log.record(HybridLogicalClock(millis: newest.millis, counter: newest.counter, node: client.device), at: Date())
            if log != before { try log.write(in: sql) }
        }
        try finish(sql)
    }
}

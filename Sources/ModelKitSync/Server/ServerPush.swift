import Foundation
import ModelKit

/// One push, applied on the server: loaded (``PushLoad``), decided (``PushPlanner``) and written
/// in one save with the sync tables, all or nothing. Rows read are checked unchanged when the
/// save commits (their version); if another instance changed one meanwhile, the push is applied
/// again from the start.
///
/// A push never wedges a device: when its save fails for a reason retrying cannot fix (a value
/// the database refuses, a constraint, a bug), the changes that fail are found by trying halves
/// of the push without committing, refused with a ``SyncRejection`` each, and the rest applied.
struct ServerPush {
    let server: SyncServer
    let request: SyncPushRequest
    /// The user the request acts for, as the server's `identify` said; nil without one.
    let user: String?

    /// Raised inside the save when a row changed since it was read: the push starts again.
    private struct RowMoved: Error {}
    /// Raised at the end of a trial's save, so that it commits nothing.
    private struct TrialPassed: Error {}
    /// A failure retrying cannot fix, of the changes tried.
    private struct ChangesFailed: Error {
        let error: any Error
    }
    /// Changes the scopes refuse, by index: the push is planned again without them.
    private struct ScopeRefused: Error {
        let rejections: [Int: SyncRejection]
    }

    private static let attempts = 16

    func apply() throws -> SyncPushResponse {
        var refused: [Int: SyncRejection] = [:]
        for _ in 0...request.changes.count {
            do {
                return try applyRetrying(request.changes, refused: refused, trial: false)
            } catch let scoped as ScopeRefused {
                refused.merge(scoped.rejections) { first, _ in first }
            } catch let failure as ChangesFailed {
                let remaining = request.changes.indices.filter { refused[$0] == nil }
                var failing = try self.failing(remaining)
                // The whole fails and no part does: they fail together.
                if failing.isEmpty { failing = remaining.map { ($0, failure.error) } }
                for (index, error) in failing { refused[index] = Self.rejection(of: request.changes[index], error) }
            }
        }
        throw SyncError(.serverFailed, "the push could not be applied, even in part; sync again")
    }

    /// The changes among `indices` that fail on their own, with their errors, found by halves.
    private func failing(_ indices: [Int]) throws -> [(Int, any Error)] {
        guard !indices.isEmpty else { return [] }
        do {
            _ = try applyRetrying(indices.map { request.changes[$0] }, refused: [:], trial: true)
            return []
        } catch let failure as ChangesFailed {
            guard indices.count > 1 else { return [(indices[0], failure.error)] }
            let half = indices.count / 2
            let found = try failing(Array(indices[..<half])) + failing(Array(indices[half...]))
            return found.isEmpty ? indices.map { ($0, failure.error) } : found
        }
    }

    /// Applies `changes` (or, in a trial, writes them and rolls back), starting again while
    /// concurrent writers get in the way.
    /// - Throws: ``ChangesFailed`` for a failure retrying cannot fix.
    private func applyRetrying(_ changes: [SyncChange], refused: [Int: SyncRejection], trial: Bool) throws -> SyncPushResponse {
        var lastError: (any Error)?
        for _ in 0..<Self.attempts {
            do {
                return try attempt(changes, refused: refused, trial: trial)
            } catch is RowMoved {
                lastError = nil
            } catch is TrialPassed {
                return SyncPushResponse(accepted: 0, conflicts: 0, rows: [], merged: [:])
            } catch let refused as ScopeRefused {
                throw refused
            } catch let error where SyncFailures.isConcurrentWrite(error) {
                // Another instance applying the same push, or creating the same row, committed
                // first: the next attempt reads what it wrote.
                lastError = error
            } catch let error where SyncFailures.isPermanent(error) {
                throw ChangesFailed(error: error)
            }
        }
        // A unique violation every attempt, or a row that moves every attempt, is the push's own.
        if let lastError, SyncFailures.isUniqueViolation(lastError) { throw ChangesFailed(error: lastError) }
        if lastError == nil {
            throw ChangesFailed(error: SyncError(.serverFailed, "the changes' rows were stored otherwise than planned at every attempt"))
        }
        throw SyncError(
            .serverFailed,
            "the push kept meeting concurrent changes of the same rows and was not applied\(lastError.map { ": \($0)" } ?? ""); sync again")
    }

    private func attempt(_ changes: [SyncChange], refused: [Int: SyncRejection], trial: Bool) throws -> SyncPushResponse {
        let device = request.envelope.device
        let context = ModelContext(server.container)
        context.autosaveEnabled = false
        context.author = SyncServer.author(of: device)
        let schema = server.schema
        if !trial, let stored = try context.replicaRead({ try $0.rows(SyncTables.selectPush, [.text(device), .text(request.id)]).first?.first }),
            case .text(let json) = stored
        {
            return try SyncJSON.decoder.decode(SyncPushResponse.self, from: Data(json.utf8))
        }
        var load = PushLoad(schema: schema, context: context)
        let snapshot = try load.snapshot(of: changes)
        let plan = try PushPlanner(schema: schema, policies: server.policies).plan(changes, refused: refused, snapshot: snapshot)
        let ids = load.ids
        let values = load.values
        var models = load.models
        let aliases = snapshot.aliases.merging(plan.merged) { _, new in new }
        // The scopes judge the changes on the rows as stored, then as written (not in a trial,
        // which looks for changes the database refuses).
        let judge = trial ? nil : ServerScope(server.scopeLayout, user: user)?.judge()
        let planned = Set(plan.rejections.map(\.id))
        let skip = Set(changes.indices.filter { refused[$0] != nil || planned.contains(changes[$0].id) })
        if let judge {
            let stored = ScopeWriteCheck(row: { models[aliases[$0] ?? $0] }, reads: judge.reads, writes: judge.writes)
            let refusals = try stored.before(changes, skip: skip)
            if !refusals.isEmpty { throw ScopeRefused(rejections: refusals) }
        }
        // Rows the push does not name (already in a to-many it changes) are read when needed.
        func resolve(_ gid: String) throws -> (any PersistentModel)? {
            let gid = aliases[gid] ?? gid
            if let model = models[gid] { return model }
            try ids.load(gids: [gid])
            guard let row = ids.byGid[gid], !row.deleted, let entity = schema.entities[row.entity] else { return nil }
            models[gid] = try context.model(of: entity.entity, rowKey: row.key)
            return models[gid]
        }

        // The writes, as the plan says: new rows, changed fields, new rows' relationships (once
        // all are made), deletes.
        for create in plan.creates {
            let entity = try schema.entity(named: create.entity)
            let stored = entity.storedValues(of: create.values) { gid, target in
                models[aliases[gid] ?? gid].flatMap { schema.entity(named: $0.persistentModelID.entityName, isA: target) ? $0._rowKey : nil }
            }
            let model = try context.makeModel(of: entity.entity, values: stored)
            context.insert(model)
            models[create.gid] = model
            ids.name(model, create.gid)
        }
        // Changed rows before new rows' relationships: the save writes changed rows in the order
        // they first changed, which is the plan's.
        for update in plan.updates {
            let entity = try schema.entity(named: update.entity)
            for (name, value) in update.values.sorted(by: { $0.key < $1.key }) {
                try values.assign(value, to: models[update.gid]!, entity.fieldsByName[name]!, in: entity, resolve: resolve)
            }
        }
        for create in plan.creates {
            let entity = try schema.entity(named: create.entity)
            for field in entity.fields where field.isRelationship {
                guard let value = create.values[field.name] else { continue }
                try values.assign(value, to: models[create.gid]!, field, in: entity, resolve: resolve)
            }
        }
        var deleted = Set<String>()
        for (gid, _) in plan.deletes {
            deleted.insert(gid)
            if let model = models[gid] { context.delete(model) }
        }
        if let judge {
            // The deletes' rules first, as the save applies them: a deleted row is out of the
            // relationships the write predicates read (a writer who deletes his membership does
            // not write the project's rows in the same push).
            try context.prepareRelationshipsForSave()
            let written = ScopeWriteCheck(row: { models[aliases[$0] ?? $0] }, reads: judge.reads, writes: judge.writes)
            let refusals = try written.after(changes, skip: skip)
            if !refusals.isEmpty { throw ScopeRefused(rejections: refusals) }
        }

        // The answer: each pushed row as the server now has it, or its tombstone.
        var rows: [SyncChange] = []
        for (gid, name) in plan.answer {
            guard let model = models[gid], !deleted.contains(gid) else {
                rows.append(SyncChange(entity: name, id: gid, deleted: true))
                continue
            }
            let entity = try schema.entity(named: model.persistentModelID.entityName)
            let clocks = plan.records[gid]?.fields ?? snapshot.rows[gid]?.clocks ?? FieldRecord()
            if let judge, try !judge.reads(model) {
                rows.append(SyncChange(entity: entity.name, id: gid, leftScope: true))
                continue
            }
            let row = SyncChange(
                entity: entity.name, id: gid,
                fields: try values.values(of: model, entity, assigning: true).reduce(into: [:]) { fields, field in
                    fields[field.key] = SyncField(value: field.value, clock: clocks[field.key]?.clock ?? HybridLogicalClock.zero.description)
                })
            rows.append(try judge.map { judge in try row.hiding { gid in try resolve(gid).map(judge.reads) ?? false } } ?? row)
        }
        let pushedIDs = Set(changes.map(\.id))
        let merged = snapshot.aliases.filter { pushedIDs.contains($0.key) }.merging(plan.merged) { _, new in new }
        let answer = SyncPushResponse(
            accepted: plan.accepted, conflicts: plan.conflicts, rows: rows.map { $0.renamingIDs(merged) }, merged: merged,
            rejections: plan.rejections)

        try context.save { sql, inserted in
            try ids.recordAssigned(in: sql)
            for (gid, record) in plan.records {
                guard let version = record.version else { continue }
                if try sql.rows(SyncTables.updateFieldsAtVersion, [record.fields.stored, .text(gid), .integer(version)]).isEmpty {
                    throw RowMoved()
                }
            }
            for create in plan.creates {
                guard let model = models[create.gid], let key = inserted.key(of: model) else { continue }
                let inserted = try sql.rows(
                    SyncTables.insertID,
                    [.text(create.gid), .text(model.persistentModelID.entityName), .integer(key), .integer(0), plan.records[create.gid]!.fields.stored])
                // Another instance stored the row's unique value first, and the insert updated its
                // row: the next attempt merges into it.
                if inserted.isEmpty { throw RowMoved() }
            }
            for (gid, target) in plan.merged { try sql.run(SyncTables.insertMerged, [.text(gid), .text(target)]) }
            for (gid, _) in plan.deletes { try sql.run(SyncTables.markDeleted, [.text(gid)]) }
            if trial { throw TrialPassed() }
            if let judge, let user { try recordView(of: answer, user: user, models: models, keys: inserted, judge: judge, in: sql) }
            let json = String(decoding: try SyncJSON.encoder.encode(answer), as: UTF8.self)
            try sql.run(SyncTables.insertPush, [.text(device), .text(request.id), .text(json)])
        }
        return answer
    }

    /// Records in the device's view (``ScopeViewStore``) what the answer leaves it holding of
    /// scoped rows, for good (version 0): the device applies the answer, or gets it again when
    /// it sends the push again. A row deleted by a user after this push then reaches the device
    /// as a tombstone.
    private func recordView(
        of answer: SyncPushResponse, user: String, models: [String: any PersistentModel], keys: InsertedRowKeys, judge: ServerScope.Judge, in sql: StoreSQL
    ) throws {
        var held: [(gid: String, ref: SyncIDs.RowRef)] = []
        var gone: [String] = []
        for row in answer.rows {
            if row.deleted || row.leftScope {
                gone.append(row.id)
            } else if let model = models[row.id], judge.isScoped(model), let key = keys.key(of: model) {
                held.append((row.id, SyncIDs.RowRef(entity: model.persistentModelID.entityName, key: key)))
            }
        }
        let viewer = ScopeViewStore.viewer(user: user, device: request.envelope.device)
        try ScopeViewStore.record(viewer, version: 0, added: held, removed: gone, in: sql)
    }

    /// The refusal of `change`, which failed with `error` on its own.
    private static func rejection(of change: SyncChange, _ error: any Error) -> SyncRejection {
        let code: SyncRejection.Code =
            if SyncFailures.isUniqueViolation(error) { .uniqueConflict }
            else if SyncFailures.isInvalidValue(error) { .invalidValue }
            else { .serverFailed }
        return SyncRejection(entity: change.entity, id: change.id, code: code, message: "the server could not apply the change: \(error)", change: change)
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

    /// The value with identifiers replaced by `canonical`'s. A to-many holds a row once: two
    /// rows merged into one are one.
    func canonicalized(_ canonical: (String) -> String) -> SyncValue {
        switch self {
        case .reference(let gid): .reference(canonical(gid))
        case .references(let gids): .references(Set(gids.map(canonical)).sorted())
        default: self
        }
    }
}

extension SyncChange {
    /// The change with the identifiers `renamed` lists replaced, in its values, bases, and
    /// what a to-many added and removed.
    func renamingIDs(_ renamed: [String: String]) -> SyncChange {
        guard !renamed.isEmpty else { return self }
        let rename = { (gid: String) in renamed[gid] ?? gid }
        var change = self
        change.id = rename(id)
        change.fields = fields.mapValues { field in
            var field = field
            field.value = field.value.canonicalized(rename)
            field.base = field.base?.canonicalized(rename)
            field.added = field.added?.map(rename)
            field.removed = field.removed?.map(rename)
            return field
        }
        return change
    }
}

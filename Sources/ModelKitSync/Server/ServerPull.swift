import Foundation
import ModelKit

/// One page of changes for a device. After a cursor, the store's history says which rows
/// changed, in the order the database committed them; each comes in its current state, or as a
/// tombstone. Without a cursor (or one older than the history kept), a full download pages
/// through every row by key, then catches up from the history token it started at.
///
/// Cursors: `h:<token>` (after that history token) and `s:<token>:<root>:<key>` (a full
/// download started at `token`, at root entity number `root`, after row key `key`).
struct ServerPull {
    let server: SyncServer
    let request: SyncPullRequest
    /// The user the request acts for, as the server's `identify` said; nil without one.
    let user: String?

    /// How many transactions one page reads at most.
    private static let transactionsPerPage = 256

    enum Cursor {
        case history(Int64)
        case download(start: Int64, root: Int, after: Int64)

        init(_ text: String?) throws {
            guard let text else {
                self = .download(start: -1, root: 0, after: Int64.min)
                return
            }
            let parts = text.split(separator: ":").map(String.init)
            if parts.count == 2, parts[0] == "h", let token = Int64(parts[1]) {
                self = .history(token)
            } else if parts.count == 4, parts[0] == "s", let start = Int64(parts[1]), let root = Int(parts[2]), root >= 0, let after = Int64(parts[3]) {
                self = .download(start: start, root: root, after: after)
            } else {
                throw SyncError(.malformedMessage, "\(text) is not a cursor this server made; pull without a cursor to download everything")
            }
        }
    }

    func page() throws -> SyncPullResponse {
        let limit = max(1, min(request.limit, 10_000))
        switch try Cursor(request.cursor) {
        case .history(let token): return try historyPage(after: token, limit: limit)
        case .download(let start, let root, let after): return try downloadPage(start: start, root: root, after: after, limit: limit)
        }
    }

    private func historyPage(after token: Int64, limit: Int) throws -> SyncPullResponse {
        let context = ModelContext(server.container)
        let storeIdentifier = try context.replicaStoreIdentifier()
        let from = DefaultHistoryToken(replicaStore: storeIdentifier, number: token)
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > from })
        descriptor.fetchLimit = UInt64(Self.transactionsPerPage)
        let transactions: [DefaultHistoryTransaction]
        do {
            transactions = try context.fetchHistory(descriptor)
        } catch let error as SwiftDataError where error == .historyTokenExpired {
            throw SyncError(
                .tooFarBehind,
                "the device last synced before the oldest history the server keeps, so it may have missed deletes: download everything again (the client does this by itself)")
        }
        var rows: [(entity: String, key: Int64)] = []
        var listed = Set<SyncIDs.RowRef>()
        var last = token
        var stoppedEarly = false
        // The device's own pushes: their answers gave it each pushed row as it became.
        let own = SyncServer.author(of: request.envelope.device)
        for transaction in transactions {
            if rows.count >= limit {
                stoppedEarly = true
                break
            }
            last = transaction.token.number
            guard transaction.author != own else { continue }
            for change in transaction.changes {
                let identifier = change.changedPersistentIdentifier
                guard let key = identifier.rowKey, server.schema.entities[identifier.entityName] != nil else { continue }
                if listed.insert(SyncIDs.RowRef(entity: identifier.entityName, key: key)).inserted {
                    rows.append((identifier.entityName, key))
                }
            }
        }
        let changes = try describe(rows, in: context)
        return SyncPullResponse(
            changes: changes, cursor: "h:\(last)", hasMore: stoppedEarly || transactions.count == Self.transactionsPerPage,
            isFullDownload: false)
    }

    private func downloadPage(start: Int64, root: Int, after: Int64, limit: Int) throws -> SyncPullResponse {
        let context = ModelContext(server.container)
        var start = start
        if start < 0 {
            var newest = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.token, order: .reverse)])
            newest.fetchLimit = 1
            start = try context.fetchHistory(newest).first?.token.number ?? 0
        }
        let roots = server.schema.roots
        var root = root
        var after = after
        var models: [any PersistentModel] = []
        while root < roots.count, models.count < limit {
            let wanted = limit - models.count
            let page = try context.models(of: roots[root].entity, keysAfter: after, limit: wanted)
            models += page
            if page.count < wanted {
                root += 1
                after = Int64.min
            } else {
                after = page.last!._rowKey!
            }
        }
        let changes = try describe(models: models, missing: [], in: context)
        let done = root >= roots.count
        return SyncPullResponse(
            changes: changes, cursor: done ? "h:\(start)" : "s:\(start):\(root):\(after)", hasMore: true, isFullDownload: true)
    }

    /// The current state of each row: its fields, or a tombstone if it is gone (and was ever
    /// synced). Rows never synced get their identifiers now.
    private func describe(_ rows: [(entity: String, key: Int64)], in context: ModelContext) throws -> [SyncChange] {
        var models: [any PersistentModel] = []
        var missing: [(entity: String, key: Int64)] = []
        for (name, keys) in Dictionary(grouping: rows, by: \.entity) {
            let entity = try server.schema.entity(named: name)
            let found = try context.models(of: entity.entity, keys: keys.map(\.key))
            // A row read through its entity may be of a subclass; it is listed under its own.
            let present = Set(found.compactMap(\._rowKey))
            models += found.filter { $0.persistentModelID.entityName == name }
            missing += keys.filter { !present.contains($0.key) }
        }
        let order = Dictionary(rows.enumerated().map { (SyncIDs.RowRef(entity: $0.element.entity, key: $0.element.key), $0.offset) }, uniquingKeysWith: min)
        models.sort {
            order[SyncIDs.RowRef(entity: $0.persistentModelID.entityName, key: $0._rowKey!)] ?? 0
                < order[SyncIDs.RowRef(entity: $1.persistentModelID.entityName, key: $1._rowKey!)] ?? 0
        }
        return try describe(models: models, missing: missing, in: context)
    }

    private func describe(models: [any PersistentModel], missing: [(entity: String, key: Int64)], in context: ModelContext) throws -> [SyncChange] {
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        for (entity, group) in Dictionary(grouping: models, by: { $0.persistentModelID.entityName }) {
            try ids.load(entity: entity, keys: group.compactMap(\._rowKey))
        }
        let values = FieldValues(schema: server.schema, ids: ids)
        var changes: [SyncChange] = []
        changes.reserveCapacity(models.count + missing.count)
        var described: [(gid: String, fields: [String: SyncValue], entity: String)] = []
        for model in models {
            let name = model.persistentModelID.entityName
            let entity = try server.schema.entity(named: name)
            guard let gid = try ids.gid(of: model, assigning: true) else { continue }
            described.append((gid, try values.values(of: model, entity, assigning: true), name))
        }
        if !ids.assigned.isEmpty {
            try context.replicaWrite { sql in
                for row in ids.assigned
                where try sql.rows(SyncTables.insertID, [.text(row.gid), .text(row.entity), .integer(row.key), .integer(0), .null]).isEmpty {
                    // Another instance gave the row its identifier first: describe it again.
                    throw SyncError(.serverFailed, "another server instance was naming the same rows; pull again")
                }
            }
        }
        let zero = HybridLogicalClock.zero.description
        for (gid, fields, entity) in described {
            let clocks = ids.byGid[gid]?.fields ?? FieldRecord()
            changes.append(
                SyncChange(
                    entity: entity, id: gid,
                    fields: fields.reduce(into: [:]) { result, field in
                        result[field.key] = SyncField(value: field.value, clock: clocks[field.key]?.clock ?? zero)
                    }))
        }
        for (entity, group) in Dictionary(grouping: missing, by: \.entity) {
            try ids.load(entity: entity, keys: group.map(\.key))
            for row in group {
                // A row made and deleted between two pulls was never synced: no device has it.
                guard let gid = try ids.gid(entity: entity, key: row.key, assigning: false) else { continue }
                changes.append(SyncChange(entity: entity, id: gid, deleted: true))
            }
        }
        return changes
    }
}

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
            } else if (parts.count == 5 && parts[0] == "h") || (parts.count == 6 && parts[0] == "s") {
                throw SyncError(.tooFarBehind, "the device's cursor was made while the server had scopes: download everything again (the client does this by itself)")
            } else {
                throw SyncError(.malformedMessage, "\(text) is not a cursor this server made; pull without a cursor to download everything")
            }
        }
    }

    func page() throws -> SyncPullResponse {
        let limit = max(1, min(request.limit, 10_000))
        if let scope = ServerScope(server.scopeLayout, user: user) {
            return try ScopedPull(pull: self, scope: scope).page(limit: limit)
        }
        switch try Cursor(request.cursor) {
        case .history(let token): return try historyPage(after: token, limit: limit)
        case .download(let start, let root, let after): return try downloadPage(start: start, root: root, after: after, limit: limit)
        }
    }

    /// The page as a device that made none of its changes sees it, and the authors of the
    /// transactions it read: the page of every such device, which ``HeldPages`` shares. Not for
    /// scoped pulls, whose pages are the user's.
    func sharedPage() throws -> (response: SyncPullResponse, authors: Set<String>) {
        let limit = max(1, min(request.limit, 10_000))
        switch try Cursor(request.cursor) {
        case .history(let token): return try historyPage(after: token, limit: limit, own: nil)
        case .download(let start, let root, let after): return (try downloadPage(start: start, root: root, after: after, limit: limit), [])
        }
    }

    private func historyPage(after token: Int64, limit: Int) throws -> SyncPullResponse {
        try historyPage(after: token, limit: limit, own: leftOut).response
    }

    private func historyPage(after token: Int64, limit: Int, own: String?) throws -> (response: SyncPullResponse, authors: Set<String>) {
        let context = ModelContext(server.container)
        let changed = try changes(after: token, limit: limit, in: context, own: own)
        let changes = try describe(changed.rows, in: context)
        return (SyncPullResponse(changes: changes, cursor: "h:\(changed.last)", hasMore: changed.hasMore, isFullDownload: false), changed.authors)
    }

    /// What history holds after a token, up to a page.
    struct Changes {
        /// The rows changed by others than the device, and rows the device's pushes deleted, in
        /// the order they first changed.
        var rows: [SyncIDs.RowRef] = []
        /// The entities of every row changed, by the device too.
        var touched: Set<String> = []
        /// The token of the last transaction read.
        var last: Int64
        /// Whether transactions remain.
        var hasMore = false
        /// The authors of the transactions read, the device's own aside.
        var authors: Set<String> = []
    }

    /// The author whose transactions a page leaves out: the device's pushes, unless it asked
    /// for them (``SyncPullRequest/includesOwnChanges``).
    var leftOut: String? { request.includesOwnChanges == true ? nil : SyncServer.author(of: request.envelope.device) }

    /// The changes after history token `token`, up to about `limit` rows, but those of
    /// transactions by `own` (the device's pushes; nil for none), deletes aside: a push may
    /// delete rows its answer does not describe (by a cascade, of rows another device made),
    /// which the device may have pulled meanwhile.
    func changes(after token: Int64, limit: Int, in context: ModelContext, own: String?) throws -> Changes {
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
        var changes = Changes(last: token)
        var listed = Set<SyncIDs.RowRef>()
        // The device's own pushes: their answers gave it each pushed row as it became, but not
        // what the push deleted besides.
        for transaction in transactions {
            if changes.rows.count >= limit {
                changes.hasMore = true
                break
            }
            changes.last = transaction.token.number
            if transaction.author != own, let author = transaction.author { changes.authors.insert(author) }
            for change in transaction.changes {
                let identifier = change.changedPersistentIdentifier
                guard let key = identifier.rowKey, server.schema.entities[identifier.entityName] != nil else { continue }
                changes.touched.insert(identifier.entityName)
                let ref = SyncIDs.RowRef(entity: identifier.entityName, key: key)
                let isDelete = if case .delete = change { true } else { false }
                if transaction.author != own || isDelete, listed.insert(ref).inserted { changes.rows.append(ref) }
            }
        }
        if transactions.count == Self.transactionsPerPage { changes.hasMore = true }
        return changes
    }

    private func downloadPage(start: Int64, root: Int, after: Int64, limit: Int) throws -> SyncPullResponse {
        let context = ModelContext(server.container)
        let start = start < 0 ? try newestToken(in: context) : start
        let (models, root, after) = try pageRoots(from: root, after: after, limit: limit) { entity, after, wanted in
            let page = try context.models(of: entity.entity, keysAfter: after, limit: wanted)
            return (page, page.count == wanted ? page.last!._rowKey! : nil)
        }
        let changes = try describe(models: models, missing: [], in: context)
        let done = root >= server.schema.roots.count
        return SyncPullResponse(
            changes: changes, cursor: done ? "h:\(start)" : "s:\(start):\(root):\(after)", hasMore: true, isFullDownload: true)
    }

    /// A full download's page: the rows of the root entities from number `root`, after key
    /// `after`, up to `limit` of them, and where the next page starts. `read` gives a root's
    /// models after a key (at most `wanted`) and the key to go on after, nil once the root is done.
    func pageRoots(
        from root: Int, after: Int64, limit: Int,
        read: (_ root: SyncSchema.Entity, _ after: Int64, _ wanted: Int) throws -> (models: [any PersistentModel], last: Int64?)
    ) rethrows -> (models: [any PersistentModel], root: Int, after: Int64) {
        let roots = server.schema.roots
        var root = root
        var after = after
        var models: [any PersistentModel] = []
        while root < roots.count, models.count < limit {
            let page = try read(roots[root], after, limit - models.count)
            models += page.models
            if let last = page.last {
                after = last
            } else {
                root += 1
                after = Int64.min
            }
        }
        return (models, root, after)
    }

    /// The newest history token: where a full download starting now catches up from.
    func newestToken(in context: ModelContext) throws -> Int64 {
        var newest = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.token, order: .reverse)])
        newest.fetchLimit = 1
        return try context.fetchHistory(newest).first?.token.number ?? 0
    }

    /// The current state of each row: its fields, or a tombstone if it is gone (and was ever
    /// synced). Rows never synced get their identifiers now.
    private func describe(_ rows: [SyncIDs.RowRef], in context: ModelContext) throws -> [SyncChange] {
        let found = try Self.models(of: rows, schema: server.schema, in: context)
        return try describe(models: rows.compactMap { found[$0] }, missing: rows.filter { found[$0] == nil }, in: context)
    }

    /// The stored models of `rows`, by row. A row read through its entity may be of a subclass;
    /// it counts under its own entity only.
    static func models(of rows: [SyncIDs.RowRef], schema: SyncSchema, in context: ModelContext) throws -> [SyncIDs.RowRef: any PersistentModel] {
        var found: [SyncIDs.RowRef: any PersistentModel] = [:]
        for (name, refs) in Dictionary(grouping: rows, by: \.entity) {
            let entity = try schema.entity(named: name)
            for model in try context.models(of: entity.entity, keys: refs.map(\.key)) where model.persistentModelID.entityName == name {
                found[SyncIDs.RowRef(entity: name, key: model._rowKey!)] = model
            }
        }
        return found
    }

    /// Describes `models` in full and `missing` rows as tombstones, naming rows through `ids`.
    /// With `reads`, relationships to rows it refuses are left out.
    func describe(
        models: [any PersistentModel], missing: [SyncIDs.RowRef], in context: ModelContext,
        ids: SyncIDs? = nil, reads: ((SyncIDs.RowRef) -> Bool)? = nil
    ) throws -> [SyncChange] {
        let ids = ids ?? SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        for (entity, group) in Dictionary(grouping: models, by: { $0.persistentModelID.entityName }) {
            try ids.load(entity: entity, keys: group.compactMap(\._rowKey))
        }
        let values = FieldValues(schema: server.schema, ids: ids)
        var changes: [SyncChange] = []
        changes.reserveCapacity(models.count + missing.count)
        let zero = HybridLogicalClock.zero.description
        var entity: SyncSchema.Entity?
        for model in models {
            let name = model.persistentModelID.entityName
            if entity?.name != name { entity = try server.schema.entity(named: name) }
            guard let gid = try ids.gid(of: model, assigning: true) else { continue }
            // Each field with the clock of its last edit; a row named just now has none yet.
            let clocks = ids.byGid[gid]?.fields ?? FieldRecord()
            var fields: [String: SyncField] = [:]
            fields.reserveCapacity(entity!.fields.count)
            for field in entity!.fields {
                fields[field.name] = SyncField(value: try values.value(of: model, field, assigning: true), clock: clocks[field.name]?.clock ?? zero)
            }
            changes.append(SyncChange(entity: name, id: gid, fields: fields))
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
        if let reads {
            changes = changes.map { change in
                change.hiding { gid in ids.byGid[gid].map { reads(SyncIDs.RowRef(entity: $0.entity, key: $0.key)) } ?? false }
            }
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

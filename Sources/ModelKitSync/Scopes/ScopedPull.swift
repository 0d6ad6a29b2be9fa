import Foundation
import ModelKit

/// A pull on a server with scopes: the pages of ``ServerPull``, holding only the rows the user
/// reads, with rows entering and leaving the device as data changes (``ScopePagePlanner``) and
/// the device's view kept by the server (``ScopeViewStore``).
///
/// Cursors carry the view's version and the user's digest: `h:<token>:<version>:<more>:<user>`
/// (after history token `token`; `more` is 1 while rows entering the scope remain to send, and 0
/// when the view holds every row the user read at that page, or at a full download's start) and
/// `s:<start>:<root>:<key>:<version>:<user>` (a full download). A cursor of another user, or of
/// a server without scopes, starts a full download.
struct ScopedPull {
    let pull: ServerPull
    let scope: ServerScope

    private enum Cursor {
        case history(token: Int64, version: Int64, more: Bool)
        case download(start: Int64, root: Int, after: Int64, version: Int64)
    }

    private var server: SyncServer { pull.server }
    private var viewer: String { ScopeViewStore.viewer(user: scope.user, device: pull.request.envelope.device) }

    private func cursor(_ text: String?) throws -> Cursor {
        guard let text else { return .download(start: -1, root: 0, after: Int64.min, version: 0) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let restart = SyncError(
            .tooFarBehind, "the device's cursor was made for another user or before the server had scopes: download the user's rows again (the client does this by itself)")
        if parts.count == 5, parts[0] == "h", let token = Int64(parts[1]), let version = Int64(parts[2]), version >= 0, parts[3] == "0" || parts[3] == "1" {
            guard parts[4] == scope.userDigest else { throw restart }
            return .history(token: token, version: version, more: parts[3] == "1")
        }
        if parts.count == 6, parts[0] == "s", let start = Int64(parts[1]), let root = Int(parts[2]), root >= 0, let after = Int64(parts[3]),
            let version = Int64(parts[4]), version >= 0
        {
            guard parts[5] == scope.userDigest else { throw restart }
            return .download(start: start, root: root, after: after, version: version)
        }
        if (parts.count == 2 && parts[0] == "h") || (parts.count == 4 && parts[0] == "s") { throw restart }
        throw SyncError(.malformedMessage, "\(text) is not a cursor this server made; pull without a cursor to download everything")
    }

    func page(limit: Int) throws -> SyncPullResponse {
        switch try cursor(pull.request.cursor) {
        case .history(let token, let version, let more): try historyPage(after: token, version: version, more: more, limit: limit)
        case .download(let start, let root, let after, let version): try downloadPage(start: start, root: root, after: after, version: version, limit: limit)
        }
    }

    private func historyPage(after token: Int64, version: Int64, more: Bool, limit: Int) throws -> SyncPullResponse {
        let context = ModelContext(server.container)
        let changed = try pull.changes(after: token, limit: limit, in: context, own: pull.leftOut)
        // Nothing happened since the last page, which sent everything: nothing can have moved.
        if changed.last == token, !more, !changed.hasMore {
            return SyncPullResponse(changes: [], cursor: pull.request.cursor!, hasMore: false, isFullDownload: false)
        }
        let view = try context.replicaWrite { try ScopeViewStore.view(of: viewer, at: version, in: $0) }
        // After a page that sent everything, the view is what the user read then.
        let readable = try scope.readable(in: context, unchanged: more ? nil : (changed.touched, view))
        var models = try ServerPull.models(of: changed.rows, schema: server.schema, in: context)
        let page = ScopePagePlanner(isScoped: scope.isScoped, reads: readable.reads)
            .plan(changed: changed.rows, present: Set(models.keys), view: view, readable: readable.rows, limit: limit)
        let entering = page.added.filter { models[$0] == nil }
        models.merge(try ServerPull.models(of: entering, schema: server.schema, in: context)) { first, _ in first }
        let leaving = try ServerPull.models(of: page.leaves.map(\.ref), schema: server.schema, in: context)
        var send = page.send.compactMap { models[$0] }
        // Rows the device keeps that point at rows entering or leaving: their relationships as
        // the device sees them change.
        let added = Set(page.added)
        let sent = Set(page.send)
        var neighbours = Set<SyncIDs.RowRef>()
        for model in page.added.compactMap({ models[$0] }) + leaving.values {
            for holder in holders(of: model) {
                let ref = SyncIDs.RowRef(entity: holder.persistentModelID.entityName, key: holder._rowKey!)
                guard !sent.contains(ref), readable.reads(ref), !scope.isScoped(ref.entity) || view[ref] != nil || added.contains(ref),
                    neighbours.insert(ref).inserted
                else { continue }
                send.append(holder)
            }
        }
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        var changes = try pull.describe(models: send, missing: page.tombstones, in: context, ids: ids, reads: readable.reads)
        changes += page.leaves.map { SyncChange(entity: $0.ref.entity, id: $0.gid, leftScope: true) }
        try record(page.added, removed: page.removed, version: version + 1, ids: ids, in: context)
        return SyncPullResponse(
            changes: changes, cursor: "h:\(changed.last):\(version + 1):\(page.more ? 1 : 0):\(scope.userDigest)",
            hasMore: changed.hasMore || page.more, isFullDownload: false)
    }

    private func downloadPage(start: Int64, root: Int, after: Int64, version: Int64, limit: Int) throws -> SyncPullResponse {
        let context = ModelContext(server.container)
        var start = start
        if start < 0 {
            start = try pull.newestToken(in: context)
            try context.replicaWrite { try ScopeViewStore.reset(viewer, in: $0) }
        }
        let readable = try scope.readable(in: context)
        let readableRows = readable.rows
        let (models, root, after) = try pull.pageRoots(from: root, after: after, limit: limit) { entity, after, wanted in
            if scope.isScoped(entity.name) {
                // Every class of the hierarchy is scoped: its rows are the ones the user reads.
                let keys = readableRows.filter { server.schema.entities[$0.entity]?.root == entity.name && $0.key > after }.map(\.key).sorted()
                let taken = Array(keys.prefix(wanted))
                let page = try context.models(of: entity.entity, keys: taken).sorted { $0._rowKey! < $1._rowKey! }
                return (page, taken.count == wanted ? taken.last : nil)
            }
            let read = try context.models(of: entity.entity, keysAfter: after, limit: wanted)
            let page = read.filter { readable.reads(SyncIDs.RowRef(entity: $0.persistentModelID.entityName, key: $0._rowKey!)) }
            return (page, read.count == wanted ? read.last!._rowKey! : nil)
        }
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        let changes = try pull.describe(models: models, missing: [], in: context, ids: ids, reads: readable.reads)
        let scoped = models.map { SyncIDs.RowRef(entity: $0.persistentModelID.entityName, key: $0._rowKey!) }.filter { scope.isScoped($0.entity) }
        try record(scoped, removed: [], version: version + 1, ids: ids, in: context)
        let cursor =
            root >= server.schema.roots.count
            ? "h:\(start):\(version + 1):0:\(scope.userDigest)" : "s:\(start):\(root):\(after):\(version + 1):\(scope.userDigest)"
        return SyncPullResponse(changes: changes, cursor: cursor, hasMore: true, isFullDownload: true)
    }

    /// Records in the view the rows `added` (named by now) and the identifiers `removed`.
    private func record(_ added: [SyncIDs.RowRef], removed: [String], version: Int64, ids: SyncIDs, in context: ModelContext) throws {
        let named = try added.compactMap { ref in try ids.gid(entity: ref.entity, key: ref.key, assigning: false).map { (gid: $0, ref: ref) } }
        guard !named.isEmpty || !removed.isEmpty else { return }
        try context.replicaWrite { try ScopeViewStore.record(viewer, version: version, added: named, removed: removed, in: $0) }
    }

    /// The stored rows whose synced relationships hold `model`: found through the inverses of
    /// `model`'s own relationships.
    private func holders(of model: any PersistentModel) -> [any PersistentModel] {
        guard let entity = server.schema.entities[model.persistentModelID.entityName] else { return [] }
        var found: [any PersistentModel] = []
        for property in entity.entity.replicaProperties {
            let target: String
            switch property.kind {
            case .attribute: continue
            case .toOne(let name, _), .toMany(let name): target = name
            }
            guard let inverse = property.inverseName, let holder = server.schema.entities[target], holder.fieldsByName[inverse] != nil else { continue }
            found += model._modelKitModels(at: property.index)
        }
        return found
    }
}

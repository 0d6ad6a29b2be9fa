import ModelKit

/// A request of a device on some version of the server's plan, around the server's own work:
/// pushes come in under the server's names and go back under the device's; pages go out shaped
/// for the device; and the pull cursor records the device's version, so that a device whose
/// app updated gets what its old version left out before it goes on.
///
/// The version rides at the end of the cursor, after a `|`, which the server's own cursors never
/// hold: `<cursor>|v<version>`, or `<cursor>|u<from>-<to>` while a device that moved from
/// version `from` to `to` catches up. Cursors of a server without a plan have none; a cursor
/// without one is taken as made for the device's version. The server's cursor comes first, so
/// that a device's `h:` test for the end of a full download holds.
struct VersionedSync {
    let server: SyncServer
    let shape: DeviceShape

    private var versions: SyncVersions { server.versions }

    // MARK: Pushes

    /// Applies `request` through `apply`, which works in the server's names.
    func push(_ request: SyncPushRequest, apply: (SyncPushRequest) throws -> SyncPushResponse) throws -> SyncPushResponse {
        guard !shape.isCurrent else { return try apply(request) }
        var shaped = request
        var pushed: [String: SyncChange] = [:]
        shaped.changes = try request.changes.compactMap { change in
            pushed[change.id] = change
            return try shape.toServer(change)
        }
        var response = try apply(shaped)
        response.rows = response.rows.compactMap(shape.toDevice)
        response.rejections = response.rejections.map { rejection in
            var rejection = rejection
            rejection.change = pushed[rejection.id] ?? shape.toDevice(rejection.change) ?? rejection.change
            return rejection
        }
        return response
    }

    // MARK: Pulls

    /// What the server's own cursor parse gets, and the version a device catching up had.
    private struct Plan {
        var cursor: String?
        var catchingUpFrom: DeviceShape?
    }

    /// The next page after `request`'s cursor, read by `load` from a server cursor.
    func pull(_ request: SyncPullRequest, load: (SyncPullRequest) throws -> SyncPullResponse) throws -> SyncPullResponse {
        guard versions.current != nil else { return try load(request) }
        let plan = try self.plan(request.cursor)
        var response = try load(SyncPullRequest(envelope: request.envelope, cursor: plan.cursor, limit: request.limit, includesOwnChanges: request.includesOwnChanges))
        var tag = "v\(shape.label)"
        if let older = plan.catchingUpFrom {
            // Rows of what differs, as ordinary changes: the device keeps its own edits.
            let differing = shape.entitiesDiffering(from: older)
            response.isFullDownload = false
            response.changes = response.changes.filter { differing.contains($0.entity) }
            response.cursor = skipping(response.cursor, toRootsOf: differing)
            if !response.cursor.hasPrefix("h:") { tag = "u\(older.label)-\(shape.label)" }
        }
        response.changes = response.changes.compactMap(shape.toDevice)
        response.cursor += "|" + tag
        return response
    }

    /// Splits a device's cursor into the server's and its version tag.
    private static func split(_ cursor: String) -> (cursor: String, tag: Substring?) {
        guard let bar = cursor.lastIndex(of: "|") else { return (cursor, nil) }
        return (String(cursor[..<bar]), cursor[cursor.index(after: bar)...])
    }

    private func plan(_ cursor: String?) throws -> Plan {
        guard let cursor else { return Plan(cursor: nil) }
        let (base, tag) = Self.split(cursor)
        guard let tag else { return Plan(cursor: base) }
        if tag.hasPrefix("v") {
            // A version the server no longer syncs: the device downloads everything again.
            guard let made = versions.shape(labeled: String(tag.dropFirst())) else { return Plan(cursor: nil) }
            return upgrade(from: made, base)
        }
        let labels = tag.dropFirst().split(separator: "-", maxSplits: 1).map(String.init)
        guard tag.hasPrefix("u"), labels.count == 2, let from = versions.shape(labeled: labels[0]) else { throw Self.malformed(cursor) }
        if labels[1] == shape.label { return Plan(cursor: base, catchingUpFrom: from) }
        // The device moved on again while catching up: it catches up from the start again.
        guard let history = Self.history(afterDownload: base) else { throw Self.malformed(cursor) }
        return upgrade(from: from, history)
    }

    /// Where a device goes on from `base`, a cursor made for its version `made`: a device on a
    /// newer version now first gets every row of the models that differ, from the history
    /// token it had; a full download it was in starts again in its new shape.
    private func upgrade(from made: DeviceShape, _ base: String) -> Plan {
        guard let old = made.version, let new = shape.version, old < new else { return Plan(cursor: base) }
        guard let token = Self.number(after: "h:", in: base) else { return Plan(cursor: nil) }
        let roots = rootIndexes(of: shape.entitiesDiffering(from: made))
        guard let first = roots.first else { return Plan(cursor: base) }
        return Plan(cursor: "s:\(token):\(first):\(Int64.min)" + Self.scopeFields(ofHistory: base), catchingUpFrom: made)
    }

    /// The sorted indexes in the server's roots of the hierarchies holding `entities`.
    private func rootIndexes(of entities: Set<String>) -> [Int] {
        let roots = Set(entities.compactMap { server.schema.entities[$0]?.root })
        return server.schema.roots.indices.filter { roots.contains(server.schema.roots[$0].name) }
    }

    /// A full-download cursor moved past the roots that hold none of `entities`: on to the next
    /// that does, or to the history token it started at.
    private func skipping(_ cursor: String, toRootsOf entities: Set<String>) -> String {
        let parts = cursor.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "s", let root = Int(parts[2]) else { return cursor }
        let wanted = rootIndexes(of: entities)
        if wanted.contains(root) { return cursor }
        if let next = wanted.first(where: { $0 > root }) { return "s:\(parts[1]):\(next):\(Int64.min)" + (parts.count == 6 ? ":\(parts[4]):\(parts[5])" : "") }
        return Self.history(afterDownload: cursor) ?? cursor
    }

    /// The fields a server with scopes adds to a history cursor (`h:<token>:<version>:<more>:<user>`)
    /// as a download cursor carries them (`:<version>:<user>`); none for a server without scopes.
    private static func scopeFields(ofHistory cursor: String) -> String {
        let parts = cursor.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 5 ? ":\(parts[2]):\(parts[4])" : ""
    }

    /// The history cursor a download cursor (`s:<start>:<root>:<key>`, and a scoped server's
    /// `:<version>:<user>`) ends at: its start token, with nothing of the scope pending.
    private static func history(afterDownload cursor: String) -> String? {
        let parts = cursor.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 4 || parts.count == 6, parts[0] == "s", Int64(parts[1]) != nil else { return nil }
        return "h:\(parts[1])" + (parts.count == 6 ? ":\(parts[4]):0:\(parts[5])" : "")
    }

    /// The number after `prefix` at the start of `cursor`, up to the next `:`.
    private static func number(after prefix: String, in cursor: String) -> Int64? {
        guard cursor.hasPrefix(prefix) else { return nil }
        return Int64(cursor.dropFirst(prefix.count).prefix { $0 != ":" })
    }

    private static func malformed(_ cursor: String) -> SyncError {
        SyncError(.malformedMessage, "\(cursor) is not a cursor this server made; pull without a cursor to download everything")
    }
}

import ModelKit

/// The views of scoped devices, kept by the server in ``SyncTables/views``: each row sent to a
/// viewer (a user on a device) with the page version that added it and the one that removed it.
///
/// A pull names the version its cursor came with. Rows added after it are dropped and rows
/// removed after it are back (the device never applied those pages: their answers were lost),
/// and rows removed at or before it are forgotten (the device applied their removal). The view
/// is then exactly what the device holds, and the page is decided against it. A push's answer
/// records its rows at version 0: below every cursor, so never undone.
enum ScopeViewStore {
    /// The viewer's key: the user and the device it pulls on.
    static func viewer(user: String, device: String) -> String { user + "\u{1F}" + device }

    /// The viewer's view at `version`, after forgetting what the device has moved past.
    static func view(of viewer: String, at version: Int64, in sql: StoreSQL) throws -> ScopeView {
        try sql.run("DELETE FROM \(SyncTables.views) WHERE viewer = ? AND (added > ? OR removed <= ?)", [.text(viewer), .integer(version), .integer(version)])
        try sql.run("UPDATE \(SyncTables.views) SET removed = NULL WHERE viewer = ? AND removed > ?", [.text(viewer), .integer(version)])
        var view = ScopeView()
        for row in try sql.rows("SELECT gid, entity, row_key FROM \(SyncTables.views) WHERE viewer = ?", [.text(viewer)]) {
            guard case .text(let gid) = row[0], case .text(let entity) = row[1], case .integer(let key) = row[2] else { continue }
            view[SyncIDs.RowRef(entity: entity, key: key)] = gid
        }
        return view
    }

    /// Forgets the viewer's view: a full download begins.
    static func reset(_ viewer: String, in sql: StoreSQL) throws {
        try sql.run("DELETE FROM \(SyncTables.views) WHERE viewer = ?", [.text(viewer)])
    }

    /// Records a page of version `version`: rows `added` (with their identifiers) and `removed`.
    static func record(
        _ viewer: String, version: Int64, added: [(gid: String, ref: SyncIDs.RowRef)], removed: [String], in sql: StoreSQL
    ) throws {
        // Many rows a statement: a full download adds a page of them at once.
        for chunk in added.chunked(100) {
            let values = Array(repeating: "(?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            try sql.run(
                "INSERT INTO \(SyncTables.views) (viewer, gid, entity, row_key, added) VALUES \(values) ON CONFLICT (viewer, gid) DO UPDATE SET added = excluded.added, removed = NULL",
                chunk.flatMap { row in [.text(viewer), .text(row.gid), .text(row.ref.entity), .integer(row.ref.key), .integer(version)] as [SQLValue] })
        }
        for chunk in removed.chunked(500) {
            try sql.run(
                "UPDATE \(SyncTables.views) SET removed = ? WHERE viewer = ? AND gid IN (\(SyncTables.placeholders(chunk.count)))",
                [.integer(version), .text(viewer)] + chunk.map { .text($0) })
        }
    }
}

import Foundation
import ModelKit

/// The device's side of a pull: its cursor, each page applied, and the end of a full download.
struct ClientPull {
    let client: SyncClient

    /// Where the last page ended; nil before the first pull and during a fresh full download.
    func cursor() throws -> String? {
        try ModelContext(client.container).replicaRead { try $0.state(ClientState.cursor) }
    }

    /// Starts a full download, after the server said the device is too far behind: the next
    /// pull starts without a cursor, and rows the download does not bring are then dropped.
    func startFullDownload() throws {
        try ModelContext(client.container).replicaWrite { sql in
            try Self.beginDownload(in: sql)
            try sql.setState(ClientState.cursor, nil)
        }
    }

    /// Numbers a new full download, after every earlier one: rows it brings are marked with
    /// its number, and those with an older one are gone from the server.
    @discardableResult
    private static func beginDownload(in sql: StoreSQL) throws -> Int64 {
        let number = (try sql.state(ClientState.downloads).flatMap { Int64($0) } ?? 0) + 1
        try sql.setState(ClientState.downloads, String(number))
        try sql.setState(ClientState.download, String(number))
        return number
    }

    /// Applies one page and moves the cursor past it, together. Returns how many rows changed.
    func apply(_ page: SyncPullResponse) throws -> Int {
        let context = ModelContext(client.container)
        var download: Int64?
        if page.isFullDownload {
            download = try context.replicaWrite { sql in
                try sql.state(ClientState.download).flatMap { Int64($0) } ?? Self.beginDownload(in: sql)
            }
        }
        let changed = try ClientApply(client: client).apply(page.changes, merged: page.merged, download: download) { sql in
            try sql.setState(ClientState.cursor, page.cursor)
        }
        guard let download, page.cursor.hasPrefix("h:") else { return changed }
        return changed + (try dropRowsNotDownloaded(download))
    }

    /// After a full download: rows the server once had and the download did not bring were
    /// deleted on the server while the device was away, or are no longer the user's to read;
    /// they go here too, and are forgotten (a row the user reads again comes back as new). Rows
    /// the server never had (no base) stay, to be pushed.
    private func dropRowsNotDownloaded(_ download: Int64) throws -> Int {
        let context = ModelContext(client.container)
        context.autosaveEnabled = false
        context.author = SyncClient.author
        let stale = try context.replicaRead { sql in
            try sql.rows(
                """
                SELECT gid, entity, row_key FROM \(SyncTables.ids) WHERE deleted = 0 AND seen < ? AND fields IS NOT NULL
                """, [.integer(download)])
        }
        var gone: [String] = []
        for row in stale {
            guard case .text(let gid) = row[0], case .text(let name) = row[1], case .integer(let key) = row[2],
                let entity = client.schema.entities[name]
            else { continue }
            if let model = try context.model(of: entity.entity, rowKey: key) { context.delete(model) }
            gone.append(gid)
        }
        try context.save { sql, _ in
            for gid in gone { try SyncTables.forget(gid, in: sql) }
            try sql.setState(ClientState.download, nil)
        }
        return gone.count
    }
}

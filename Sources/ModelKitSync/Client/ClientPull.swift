import Foundation
import ModelKit

/// The device's side of a pull: its cursor, each page applied, and the end of a full download.
///
/// A full download reads the server's rows from its start token on, then catches up through
/// the history after that token. Rows the download and its catch-up do not bring are gone from
/// the server, and go here too; but a row the device pushed while the download ran may be
/// missing from the download's pages, read before the push, and the history leaves out the
/// device's own pushes. So the catch-up asks for them (``SyncPullRequest/includesOwnChanges``),
/// marks what it brings as the download's, and the device drops rows only at its end.
struct ClientPull {
    let client: SyncClient

    /// Where the last page ended (nil before the first pull and during a fresh full download),
    /// and whether the device is in a full download or its catch-up:
    /// then its pulls ask for its own changes too.
    func position() throws -> (cursor: String?, catchingUp: Bool) {
        try ModelContext(client.container).replicaRead { sql in
            (try sql.state(ClientState.cursor), try sql.state(ClientState.download) != nil)
        }
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

    /// Applies one page and moves the cursor past it, together. When the page ends a full
    /// download's catch-up, rows neither brought are dropped, unless `mayEndDownload` is false
    /// (a push was answered since the page was fetched, and the page may lack its rows): then
    /// the download goes on, and the page after it ends it.
    func apply(_ page: SyncPullResponse, mayEndDownload: Bool = true) throws -> (changed: Int, downloadGoesOn: Bool) {
        let context = ModelContext(client.container)
        // The download the page is part of, or whose catch-up it is: the rows it brings are seen.
        let download = try context.replicaWrite { sql -> Int64? in
            let underWay = try sql.state(ClientState.download).flatMap { Int64($0) }
            return page.isFullDownload ? try underWay ?? Self.beginDownload(in: sql) : underWay
        }
        let changed = try ClientApply(client: client).apply(page.changes, merged: page.merged, download: download) { sql in
            try sql.setState(ClientState.cursor, page.cursor)
        }
        guard let download, !page.isFullDownload, !page.hasMore else { return (changed, false) }
        guard mayEndDownload else { return (changed, true) }
        return (changed + (try dropRowsNotDownloaded(download)), false)
    }

    /// After a full download and its catch-up: rows the server once had and neither brought were
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

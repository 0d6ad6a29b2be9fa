import ModelKit

/// The tables sync keeps in the store beside the models, written in the same transactions as
/// the rows they describe, so they survive restarts and move with the file. The same on a
/// device and on the server, which use some of them:
///
/// | table | holds |
/// |---|---|
/// | `_modelkit_sync_ids` | each synced row's global identifier, entity, key, version, whether it is deleted (a tombstone), and its ``FieldRecord``: per property, the device's base value (what it last had from the server) and the clock of the edit that set it |
/// | `_modelkit_sync_state` | the device's identifier, cursor, pushed history token, clock and unanswered push |
/// | `_modelkit_sync_pushes` | the server's answer to each push, by device and push identifier, for retries |
/// | `_modelkit_sync_merged` | identifiers the server merged into another row's (unique attributes) |
/// | `_modelkit_sync_waiting` | pulled values that wait for rows: a relationship's rows to arrive, or a unique value's holder (a local change) to give it up |
/// | `_modelkit_sync_awaited` | the rows each waiting value waits for, so that a page retries only the values its rows settle |
/// | `_modelkit_sync_views` | on a server with scopes, the rows each user's device holds of scoped entities (``ScopeViewStore``) |
enum SyncTables {
    static let ids = "_modelkit_sync_ids"
    static let state = "_modelkit_sync_state"
    static let pushes = "_modelkit_sync_pushes"
    static let merged = "_modelkit_sync_merged"
    static let waiting = "_modelkit_sync_waiting"
    static let awaited = "_modelkit_sync_awaited"
    static let views = "_modelkit_sync_views"

    /// Creates the tables if the store lacks them, under the dialect's setup lock, so that
    /// server instances starting together do not race.
    static func create(in sql: StoreSQL) throws {
        try sql.lockForSetup(7_146_251_533)
        let bytes = sql.dialect.columnType(.blob)
        try sql.execute(
            """
            CREATE TABLE IF NOT EXISTS \(ids) (gid TEXT PRIMARY KEY NOT NULL, entity TEXT NOT NULL, row_key BIGINT NOT NULL, version BIGINT NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0, seen BIGINT NOT NULL DEFAULT 0, fields \(bytes));
            CREATE UNIQUE INDEX IF NOT EXISTS \(ids)_row ON \(ids) (entity, row_key);
            CREATE TABLE IF NOT EXISTS \(state) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS \(pushes) (device TEXT NOT NULL, push TEXT NOT NULL, response TEXT NOT NULL, PRIMARY KEY (device, push));
            CREATE TABLE IF NOT EXISTS \(merged) (gid TEXT PRIMARY KEY NOT NULL, target TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS \(waiting) (gid TEXT NOT NULL, property TEXT NOT NULL, value TEXT NOT NULL, clock TEXT NOT NULL, PRIMARY KEY (gid, property));
            CREATE TABLE IF NOT EXISTS \(awaited) (target TEXT NOT NULL, gid TEXT NOT NULL, property TEXT NOT NULL, PRIMARY KEY (target, gid, property));
            CREATE INDEX IF NOT EXISTS \(awaited)_field ON \(awaited) (gid, property);
            CREATE TABLE IF NOT EXISTS \(views) (viewer TEXT NOT NULL, gid TEXT NOT NULL, entity TEXT NOT NULL, row_key BIGINT NOT NULL, added BIGINT NOT NULL, removed BIGINT, PRIMARY KEY (viewer, gid));
            """)
        // Values that began to wait before the awaited table existed wait for every row they name.
        if try sql.rows("SELECT 1 FROM \(awaited) LIMIT 1").isEmpty {
            for row in try sql.rows(selectWaiting) {
                guard case .text(let gid) = row[0], case .text(let property) = row[1], case .text(let json) = row[2] else { continue }
                for target in try SyncJSON.value(json).referencedIDs { try sql.run(insertAwaited, [.text(target), .text(gid), .text(property)]) }
            }
        }
    }

    // MARK: Identifiers

    /// gid, entity, row key, version, deleted, fields: for the gids bound (in chunks).
    static func selectIDs(count: Int) -> String {
        "SELECT gid, entity, row_key, version, deleted, fields FROM \(ids) WHERE gid IN (\(placeholders(count)))"
    }

    /// gid, entity, row key, version, deleted, fields: of the entity bound first, for the keys
    /// bound after it.
    static func selectIDsOfRows(count: Int) -> String {
        "SELECT gid, entity, row_key, version, deleted, fields FROM \(ids) WHERE entity = ? AND row_key IN (\(placeholders(count)))"
    }

    /// Records a row's identifier: gid, entity, key, the full download that brought it (0 for
    /// none) and its fields; nothing if the row has one. Returns the gid when it inserted it.
    static let insertID =
        "INSERT INTO \(ids) (gid, entity, row_key, seen, fields) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING gid"
    /// Records the identifiers of new rows, as ``insertID`` does one, in statements of up to 500
    /// rows: each row's gid, entity, key, seen and fields, one after another.
    static func insertIDs(_ values: [SQLValue], in sql: StoreSQL) throws {
        for chunk in values.chunked(5 * 500) {
            let rows = Array(repeating: "(?, ?, ?, ?, ?)", count: chunk.count / 5).joined(separator: ", ")
            try sql.run("INSERT INTO \(ids) (gid, entity, row_key, seen, fields) VALUES \(rows) ON CONFLICT DO NOTHING", Array(chunk))
        }
    }
    /// Sets a row's fields and takes its version from the bound one to the next: fields, gid,
    /// version; returns the gid if the version was the bound one.
    static let updateFieldsAtVersion = "UPDATE \(ids) SET fields = ?, version = version + 1 WHERE gid = ? AND version = ? RETURNING gid"
    /// Sets a row's fields and the full download that brought it: fields, seen, gid.
    static let updateFields = "UPDATE \(ids) SET fields = ?, seen = CASE WHEN ? > seen THEN ? ELSE seen END WHERE gid = ?"
    /// Marks the bound gid deleted, forgetting its fields.
    static let markDeleted = "UPDATE \(ids) SET deleted = 1, fields = NULL, version = version + 1 WHERE gid = ?"
    /// Renames a gid (a merge): new, old.
    static let renameID = "UPDATE \(ids) SET gid = ? WHERE gid = ?"
    /// Forgets a gid folded into another row's (a merge into a row the device has).
    static let deleteID = "DELETE FROM \(ids) WHERE gid = ?"

    /// Forgets a row the device no longer holds and that is not deleted (it left the user's
    /// scope): its identifier and its waiting values, so that it can come back as a new row.
    static func forget(_ gid: String, in sql: StoreSQL) throws {
        try sql.run(deleteID, [.text(gid)])
        try sql.run("DELETE FROM \(waiting) WHERE gid = ?", [.text(gid)])
        try sql.run("DELETE FROM \(awaited) WHERE gid = ?", [.text(gid)])
    }

    // MARK: State

    static let selectState = "SELECT value FROM \(state) WHERE key = ?"
    static let upsertState = "INSERT INTO \(state) (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    static let deleteState = "DELETE FROM \(state) WHERE key = ?"

    // MARK: Server

    static let selectPush = "SELECT response FROM \(pushes) WHERE device = ? AND push = ?"
    static let insertPush = "INSERT INTO \(pushes) (device, push, response) VALUES (?, ?, ?)"
    /// gid, target: of the gids bound (in chunks) that were merged into others.
    static func selectMerged(count: Int) -> String { "SELECT gid, target FROM \(merged) WHERE gid IN (\(placeholders(count)))" }
    static let insertMerged = "INSERT INTO \(merged) (gid, target) VALUES (?, ?) ON CONFLICT (gid) DO NOTHING"

    // MARK: Waiting relationships

    static let selectWaiting = "SELECT gid, property, value, clock FROM \(waiting)"
    static let upsertWaiting =
        "INSERT INTO \(waiting) (gid, property, value, clock) VALUES (?, ?, ?, ?) ON CONFLICT (gid, property) DO UPDATE SET value = excluded.value, clock = excluded.clock"
    static let deleteWaiting = "DELETE FROM \(waiting) WHERE gid = ? AND property = ?"
    /// The waiting values (gid, property, value, clock) that wait for one of the gids bound.
    static func selectAwaiting(count: Int) -> String {
        "SELECT DISTINCT w.gid, w.property, w.value, w.clock FROM \(awaited) a JOIN \(waiting) w ON w.gid = a.gid AND w.property = a.property WHERE a.target IN (\(placeholders(count)))"
    }
    /// The waiting fields (gid, property) of the gids bound.
    static func selectWaitingFields(count: Int) -> String {
        "SELECT gid, property FROM \(waiting) WHERE gid IN (\(placeholders(count)))"
    }
    static let insertAwaited = "INSERT INTO \(awaited) (target, gid, property) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
    static let deleteAwaited = "DELETE FROM \(awaited) WHERE gid = ? AND property = ?"

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

extension StoreSQL {
    /// A value of the state table.
    func state(_ key: String) throws -> String? {
        guard case .text(let value)? = try rows(SyncTables.selectState, [.text(key)]).first?.first else { return nil }
        return value
    }

    func setState(_ key: String, _ value: String?) throws {
        if let value {
            try run(SyncTables.upsertState, [.text(key), .text(value)])
        } else {
            try run(SyncTables.deleteState, [.text(key)])
        }
    }
}

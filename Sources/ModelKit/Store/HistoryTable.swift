import Foundation

/// The store's history: one row per transaction, in the same SQLite transaction as its data, so
/// that data and history never disagree, not even after a crash.
///
/// `token` follows the newest token given out on SQLite (the largest, or the newest a deletion
/// removed), and is the writing transaction's id on PostgreSQL (see
/// ``SQLDialect/HistoryRecording/tokenDefinition``), so numbers are never reused, even after the newest
/// transactions are deleted. The changes of a transaction are one
/// ``HistoryRecord`` blob.
enum HistoryTable {
    static let name = HistorySQL.table
    /// The `_modelkit_store` key under which the newest token ``ModelContext/deleteHistory(_:)``
    /// removed is kept: a reader resuming from an older token has missed transactions.
    static let deletedThroughKey = "historyDeletedThrough"

    /// Who is saving, as every transaction of this process records it.
    private static let bundle = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    private static let process = String(ProcessInfo.processInfo.processIdentifier)

    /// Whether the store has a history table.
    static func exists(in connection: Connection) throws -> Bool {
        try connection.hasTable(named: name)
    }

    /// Records one transaction and returns its token. Call inside the transaction that writes the
    /// data the record describes. `token` is the next token where the writer knows it (nothing
    /// but its own saves committed since the last one, see ``StoreAccess/WriterTurn``): the
    /// insert then binds it instead of looking the newest token up.
    ///
    /// Where several writers share the database (PostgreSQL), appends never wait for each other:
    /// the token is the transaction's id, and readers see only settled tokens (see
    /// ``SQLDialect/HistoryRecording/settledBound``). Begin the transaction with
    /// ``SQLDialect/HistoryRecording/begin``.
    static func append(_ record: inout HistoryRecord, author: String?, to connection: Connection, token: Int64? = nil) throws -> Int64 {
        let dialect = connection.dialect
        let values = appendStatement(&record, author: author).bindings
        guard dialect.keys.insertReturnsKey else {
            if let token {
                try connection.statement(HistorySQL.insertWithToken).run([.integer(token)] + values)
            } else {
                try connection.statement(HistorySQL.insert).run(values)
            }
            guard let token = connection.lastInsertedRowID else {
                throw ModelKitError.invalidSchema(entity: name, reason: "the database returned no token for the history insert")
            }
            return token
        }
        let statement = try connection.statement(HistorySQL.insertReturningToken)
        try statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return statement.int64(at: 0)
    }

    /// The insert of one transaction's record, returning its token, for a backend to run as the
    /// transaction's last statement (see ``SQLDialect/HistoryRecording/foldsIntoCommit``).
    static func appendStatement(_ record: inout HistoryRecord, author: String?) -> SQL {
        let values: [SQLValue] = [Date().sqlValue, author.map(SQLValue.text) ?? .null, .text(bundle), .text(process), .blob(record.encoded())]
        return SQL(text: HistorySQL.insertReturningToken, bindings: values)
    }

    /// Moves a history whose tokens an older build made otherwise to the dialect's tokens
    /// (PostgreSQL's, made by an identity column before they were transaction ids; see
    /// ``SQLDialect/LegacyTokens``). Each old token counts a transaction that had an id, so the
    /// next token is larger and tokens keep growing. Call with the writer, outside a transaction.
    /// - Throws: ``ModelKitError/invalidSchema(entity:reason:)`` if the database's new tokens
    ///   would be behind its old ones (restored into a new server): tokens would go backwards.
    static func upgradeTokens(in connection: Connection) throws {
        guard let legacy = connection.dialect.history.legacyTokens, try connection.statement(legacy.isLegacy).rows() == [[.text("YES")]] else {
            return
        }
        try connection.transaction {
            try connection.execute(legacy.lock)
            guard try connection.statement(legacy.isLegacy).rows() == [[.text("YES")]] else { return }
            let row = try connection.statement(legacy.largestAndNext).rows().first
            guard case .integer(let largest)? = row?.first, case .integer(let current)? = row?.last, largest < current else {
                throw ModelKitError.invalidSchema(
                    entity: name,
                    reason: "its history tokens are ahead of the server's transaction ids (was it restored into a new server?); "
                        + "delete the history (deleteHistory with no predicate) from a build before this one, then open it again")
            }
            try connection.execute(legacy.convert)
        }
    }

    /// The newest token ever given out, deleted or not; 0 for an empty history.
    static func newestToken(in connection: Connection) throws -> Int64 {
        let rows = try connection.statement(connection.dialect.history.newestToken).rows()
        guard case .integer(let token)? = rows.first?.first else { return 0 }
        return token
    }

    /// The newest token ``ModelContext/deleteHistory(_:)`` has removed; 0 if none.
    static func deletedThrough(in connection: Connection) throws -> Int64 {
        let rows = try connection.statement(Migrator.storedValue).rows([.text(deletedThroughKey)])
        guard case .text(let text)? = rows.first?.first else { return 0 }
        return Int64(text) ?? 0
    }

    /// Deletes the transactions `condition` matches (all of them when nil), and remembers the
    /// newest token deleted. Call inside a write transaction.
    static func delete(where condition: PredicateTerm?, in connection: Connection) throws {
        let sql = HistorySQL.delete(where: condition)
        let deleted = try connection.statement(sql.text)
        try deleted.bind(sql.bindings)
        guard let newest = try deleted.int64s().max() else { return }
        guard newest > (try deletedThrough(in: connection)) else { return }
        try connection.statement(Migrator.setStoredValue).run([.text(deletedThroughKey), .text(String(newest))])
    }

    /// Deletes the whole history, after a commit that changed data without recording which rows
    /// (``ModelContainer/deleteAllData()``): every token given out so far expires, so no reader
    /// resumes as if it had missed nothing. Call inside a write transaction.
    static func deleteAll(in connection: Connection) throws {
        let newest = try newestToken(in: connection)
        try connection.execute(HistorySQL.deleteAll)
        try connection.statement(Migrator.setStoredValue).run([.text(deletedThroughKey), .text(String(newest + 1))])
    }

    /// What the transactions after `token` changed, merged, for the contexts of another process,
    /// and the newest token read. Nil when the history cannot say (no transaction follows
    /// `token`, or one is missing: deleted, or the commit was made by a program that records no
    /// history), and everything must be assumed changed.
    static func changes(after token: Int64, in connection: Connection) throws -> (change: StoreChange, newest: Int64)? {
        let statement = try connection.statement(HistorySQL.changesAfter)
        var merged = StoreChange()
        var newest = token
        for row in try statement.rows([.integer(token)]) {
            guard case .integer(newest + 1) = row[0], case .blob(let blob) = row[1] else { return nil }
            let change = try HistoryRecord.keys(in: blob)
            merged.inserted.merge(change.inserted, uniquingKeysWith: +)
            merged.updated.merge(change.updated, uniquingKeysWith: +)
            merged.deleted.merge(change.deleted, uniquingKeysWith: +)
            newest += 1
        }
        return newest > token ? (merged, newest) : nil
    }
}

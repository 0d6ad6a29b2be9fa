import Foundation

/// The SQL of the store's history table (see ``HistoryTable``).
enum HistorySQL {
    static let table = "_modelkit_history"

    /// Creates the table, as `dialect` spells it.
    static func create(_ dialect: SQLDialect) -> String {
        let text = dialect.columnType(.text)
        return """
            CREATE TABLE IF NOT EXISTS \(table) (
                "token" \(dialect.history.tokenDefinition), "timestamp" \(dialect.columnType(.real)) NOT NULL, "author" \(text),
                "bundle" \(text) NOT NULL, "process" \(text) NOT NULL, "changes" \(dialect.columnType(.blob)) NOT NULL)
            """
    }

    /// The newest token given out on SQLite: the table's largest, or the newest a deletion
    /// removed (``HistoryTable/deletedThroughKey``), whichever is larger.
    static let newestToken = """
        SELECT max(coalesce((SELECT max("token") FROM \(table)), 0), \
        coalesce((SELECT CAST(value AS INTEGER) FROM \(Migrator.storeTable) WHERE key = '\(HistoryTable.deletedThroughKey)'), 0))
        """
    /// Appends one transaction on SQLite, under the token after ``newestToken``: bind its
    /// timestamp, author, bundle, process and changes. The table needs no `AUTOINCREMENT`, whose
    /// `sqlite_sequence` row every insert would write (a page more a save): deletions keep the
    /// newest token they removed.
    static let insert = "\(insertEveryColumn) ((\(newestToken)) + 1, ?, ?, ?, ?, ?)"
    /// Appends one transaction on SQLite under a token the writer knows is next (see
    /// ``HistoryTable/append(_:author:to:token:)``): bind it, then as ``insert``.
    static let insertWithToken = "\(insertEveryColumn) (?, ?, ?, ?, ?, ?)"
    private static let insertEveryColumn = #"INSERT INTO \#(table) ("token", "timestamp", "author", "bundle", "process", "changes") VALUES"#
    /// Appends one transaction, returning the new token, for dialects where the connection does
    /// not tell it and the database makes the token.
    static let insertReturningToken =
        #"INSERT INTO _modelkit_history ("timestamp", "author", "bundle", "process", "changes") VALUES (?, ?, ?, ?, ?) RETURNING "token""#
    /// Every column of the transactions, in ``HistoryTable``'s order.
    static let select = #"SELECT "token", "timestamp", "author", "bundle", "process", "changes" FROM _modelkit_history"#
    /// The tokens and changes after the token bound, in order.
    static let changesAfter = #"SELECT "token", "changes" FROM _modelkit_history WHERE "token" > ? ORDER BY "token""#
    /// Deletes every transaction.
    static let deleteAll = "DELETE FROM \(table)"

    /// Deletes the transactions `condition` matches (all when nil) and returns their tokens.
    static func delete(where condition: PredicateTerm?) -> SQL {
        let whereClause = condition.map { PredicateTerm.compose(" WHERE $0", $0) } ?? PredicateTerm("")
        return SQL(text: "DELETE FROM \(table)\(whereClause.text) RETURNING \"token\"", bindings: whereClause.bindings)
    }

    /// The history's columns by key path of ``DefaultHistoryTransaction``, for predicates.
    static func columns(storeIdentifier: String) -> [AnyKeyPath: PredicateTerm] {
        [
            \DefaultHistoryTransaction.token: PredicateTerm(#""token""#, type: Int64.self),
            \DefaultHistoryTransaction.transactionIdentifier: PredicateTerm(#""token""#, type: Int64.self),
            \DefaultHistoryTransaction.timestamp: PredicateTerm(#""timestamp""#, type: Date.self),
            \DefaultHistoryTransaction.author: PredicateTerm(#""author""#, type: String?.self),
            \DefaultHistoryTransaction.bundleIdentifier: PredicateTerm(#""bundle""#, type: String.self),
            \DefaultHistoryTransaction.processIdentifier: PredicateTerm(#""process""#, type: String.self),
            \DefaultHistoryTransaction.storeIdentifier: PredicateTerm("?", bindings: [.text(storeIdentifier)], type: String.self),
        ]
    }
}

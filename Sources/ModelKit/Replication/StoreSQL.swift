/// SQL on a store's connection, inside a transaction the engine opened: how `ModelKitSync` keeps
/// its own tables in the store, written in the same transaction as the models they describe.
/// Parameters are written `?` in either dialect.
package struct StoreSQL {
    let connection: Connection

    /// The store's dialect, for the little that differs: column types, the setup lock, values.
    package var dialect: SQLDialect { connection.dialect }

    /// Keeps other connections that take lock `key` out of their setup until the transaction
    /// ends, where the dialect needs it (``SQLDialect/Catalog/setupLock``).
    package func lockForSetup(_ key: Int64) throws {
        if let lock = dialect.catalog.setupLock { try run(lock, [.integer(key)]) }
    }

    /// Runs statements without parameters.
    package func execute(_ sql: String) throws {
        try connection.execute(sql)
    }

    /// Runs a statement and returns its rows.
    package func rows(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        return try statement.rows(values)
    }

    /// Runs a statement, ignoring any rows.
    package func run(_ sql: String, _ values: [SQLValue] = []) throws {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        try statement.run(values)
    }
}

extension StoreSQL {
    /// The newest history token of a transaction not by `author`; nil when there is none.
    package func newestHistoryToken(notBy author: String) throws -> Int64? {
        let row = try rows(
            #"SELECT max("token") FROM \#(HistorySQL.table) WHERE "author" IS NULL OR "author" <> ?"#, [.text(author)]
        ).first
        if case .integer(let token)? = row?.first { return token }
        return nil
    }
}

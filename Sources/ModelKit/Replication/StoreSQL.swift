/// SQL on a store's connection, inside a transaction the engine opened: how `ModelKitSync` keeps
/// its own tables in the store, written in the same transaction as the models they describe.
/// Parameters are written `?` in either dialect.
package struct StoreSQL {
    let connection: Connection

    /// Whether the store is PostgreSQL (else SQLite), for the little DDL that differs.
    package var isPostgres: Bool { connection.dialect == .postgres }

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

import Foundation

/// How contexts read a store: `SQL` values run on the context's reader connection. Callers never
/// prepare, bind or step; each row is handed to them while it is the statement's current row.
struct StoreReader {
    let connection: Connection

    /// Called with the text of each statement the reader runs.
    var trace: ((String) -> Void)? {
        get { connection.trace }
        nonmutating set { connection.trace = newValue }
    }

    /// A number that changes when anyone commits to the database, this process included; nil
    /// for a backend that hears other writers some other way.
    var changeCounter: UInt32? { connection.changeCounter }

    /// The newest history token a ``ModelContext/deleteHistory(_:)`` removed, or 0.
    func historyDeletedThrough() throws -> Int64 {
        try HistoryTable.deletedThrough(in: connection)
    }

    /// Where history tokens commit out of order, the first token not yet settled
    /// (``SQLDialect/HistoryRecording/settledBound``), once the history is settled through `token` (the
    /// process's newest commit, so that a read after it sees it); nil elsewhere. A save of the
    /// store that started before it and runs on holds it back: after a second the read goes
    /// ahead with what is settled. Read before the history, in a statement of its own.
    func settledHistoryBound(through token: Int64) throws -> Int64? {
        guard let sql = connection.dialect.history.settledBound else { return nil }
        let statement = try connection.statement(sql)
        let deadline = ContinuousClock.now + .seconds(1)
        while true {
            guard case .integer(let bound)? = try statement.rows().first?.first else {
                throw ModelKitError.invalidSchema(entity: HistoryTable.name, reason: "the database returned no settled history token")
            }
            if bound > token || ContinuousClock.now >= deadline { return bound }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    /// The rows `sql` selects, as values.
    func rows(_ sql: SQL) throws -> [[SQLValue]] {
        try connection.statement(sql.text).rows(sql.bindings)
    }

    /// The integers in the first column of the rows `sql` selects: keys, or a count.
    func integers(_ sql: SQL) throws -> [Int64] {
        let statement = try connection.statement(sql.text)
        try statement.bind(sql.bindings)
        return try statement.int64s()
    }

    /// Calls `body` with each row `sql` selects, in order. A row is valid only during its call.
    func select(_ sql: SQL, each body: (Statement) throws -> Void) throws {
        try select(sql, through: { $0 }, each: body)
    }

    /// Calls `body` with each row `sql` selects, in order, through what `view` makes of the
    /// statement once, before the first row: a view of the current row (a ``ModelRow``) made once
    /// a fetch rather than once a row. A row is valid only during its call.
    func select<View>(_ sql: SQL, through view: (Statement) -> View, each body: (View) throws -> Void) throws {
        let statement = try connection.statement(sql.text)
        try statement.bind(sql.bindings)
        defer { statement.reset() }
        let current = view(statement)
        while try statement.step() { try body(current) }
    }

    /// What `body` makes of the first row `sql` selects, or nil when it selects none.
    func first<R>(_ sql: SQL, _ body: (Statement) throws -> R) throws -> R? {
        let statement = try connection.statement(sql.text)
        try statement.bind(sql.bindings)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try body(statement)
    }
}

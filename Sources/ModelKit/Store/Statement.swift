/// A prepared statement of any backend, owned by its ``Connection``, which caches it by SQL text.
final class Statement {
    private let backend: any DatabaseStatement
    let sql: String
    /// The current row's typed reads when the backend is SQLite: how models read their columns.
    let sqliteColumns: SQLiteColumns?
    /// The row's values when the statement stands on a row its owner rewrites: how a custom
    /// store's models read theirs.
    let rowValues: RowValues?

    /// The backend's statement, for a backend call that runs it (``DatabaseConnection/commit(after:values:)``).
    var backendStatement: any DatabaseStatement { backend }

    /// A statement standing on one row of values, already stepped to it: how a model is made
    /// from values that no query returned (an unsaved model made from values, a stand-in).
    init(row: [SQLValue]) {
        sql = ""
        backend = ValuesStatement(row)
        sqliteColumns = nil
        rowValues = nil
    }

    /// A statement standing on the row `values` holds, which its owner rewrites between reads:
    /// how a custom store's snapshots become models without a row array each.
    init(values: RowValues) {
        sql = ""
        backend = values
        sqliteColumns = nil
        rowValues = values
    }

    /// Prepares `sql`, written with `?` parameters, in `dialect`'s spelling.
    init(sql: String, in connection: any DatabaseConnection, dialect: SQLDialect) throws {
        self.sql = sql
        let (text, parameterCount) = dialect.spellingParameters(of: sql)
        backend = try connection.prepare(text, parameterCount: parameterCount)
        sqliteColumns = (backend as? SQLiteStatement).map { SQLiteColumns($0.handle) }
        rowValues = nil
    }

    /// Clears previous bindings and binds `values` to the parameters, in order.
    func bind(_ values: [SQLValue]) throws {
        try backend.bind(values)
    }

    /// Clears previous bindings and binds `value(i)` to parameter `i + 1`, for each of `count`.
    func bind(count: Int, _ value: (Int) throws -> SQLValue) throws {
        try backend.bind(count: count, value)
    }

    /// Ends the current run, so the statement can be bound and stepped again.
    func reset() {
        backend.reset()
    }

    /// The integer in `column` of the current row.
    func int64(at column: Int32) -> Int64 {
        backend.int64(at: column)
    }

    /// Advances to the next row. Returns false when the statement is done.
    func step() throws -> Bool {
        try backend.step()
    }

    var columnCount: Int32 { backend.columnCount }

    /// Runs the statement to completion, ignoring any rows.
    func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        while try step() {}
    }

    /// Runs the statement and returns every row, as values.
    func rows(_ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try bind(values)
        var rows: [[SQLValue]] = []
        while try step() {
            rows.append((0..<columnCount).map { column($0) })
        }
        return rows
    }

    /// Runs the statement bound to `values` and returns whether it gives a row, without reading it.
    func hasRow(_ values: [SQLValue]) throws -> Bool {
        try bind(values)
        defer { reset() }
        return try step()
    }

    /// Runs the bound statement and returns the first column of every row as an integer.
    func int64s() throws -> [Int64] {
        defer { reset() }
        var values: [Int64] = []
        while try step() { values.append(int64(at: 0)) }
        return values
    }

    func column(_ index: Int32) -> SQLValue {
        backend.column(index)
    }
}


/// One row of values, as a statement positioned on it reads them.
private final class ValuesStatement: DatabaseStatement {
    private let row: [SQLValue]
    init(_ row: [SQLValue]) { self.row = row }
    func bind(_ values: [SQLValue]) throws {}
    func step() throws -> Bool { false }
    func reset() {}
    var columnCount: Int32 { Int32(row.count) }
    func column(_ index: Int32) -> SQLValue { row[Int(index)] }
}

/// A row of values its owner rewrites in place, read as a statement positioned on it.
@usableFromInline
final class RowValues: DatabaseStatement {
    /// Written by its owner between reads, read by one model's initializer at a time, and never
    /// reached again from inside either: no two accesses overlap, so Swift's check for
    /// overlapping access (a fifth of a custom store's fetch) is off.
    @exclusivity(unchecked) @usableFromInline var row: [SQLValue]
    init(count: Int) { row = [SQLValue](repeating: .null, count: count) }
    func bind(_ values: [SQLValue]) throws {}
    func step() throws -> Bool { false }
    func reset() {}
    var columnCount: Int32 { Int32(row.count) }
    func column(_ index: Int32) -> SQLValue { row[Int(index)] }
}

/// A save's inserts of many rows, written as multi-row `INSERT`s where a round trip per row is
/// what an insert costs (PostgreSQL): the rows' keys come from the table's key sequence in one
/// round trip (``TableSQL/reserveKeys(for:)``), each row's values are kept, and up to
/// ``SQLDialect/rowsPerBatch(columns:)`` rows go in one statement. 100,000 rows take about a hundred round trips
/// instead of 100,000.
///
/// Only entities without unique constraints are batched: a conflict must update the stored row,
/// which a plain multi-row insert cannot. No foreign key constraint orders the rows, so rows of
/// different entities can be held back together; ``flush(in:)`` writes them all before any
/// other statement reads or changes their tables.
struct InsertBatches {
    private struct Batch {
        let entity: Schema.Entity
        /// Reserved keys not yet used, last first.
        var keys: [Int64]
        /// Rows held back: each row's key, then its stored columns' values.
        var values: [SQLValue] = []
        var rows = 0
    }

    private var batches: [Batch] = []

    /// Reserves keys for `count` new rows of `entity`, in one round trip; its inserts are then
    /// held back. Does nothing for one row or where the dialect does not batch.
    mutating func expect(_ count: Int, of entity: Schema.Entity, in connection: Connection) throws {
        guard count > 1, entity.sql.upsert == nil, let sql = entity.sql.reserveKeys(for: connection.dialect),
            !batches.contains(where: { $0.entity === entity })
        else { return }
        let keys = try connection.statement(sql).rows([.integer(Int64(count))]).compactMap { row -> Int64? in
            if case .integer(let key)? = row.first { key } else { nil }
        }
        guard keys.count == count else {
            throw ModelKitError.invalidSchema(entity: entity.name, reason: "the database reserved \(keys.count) keys for \(count) rows")
        }
        batches.append(Batch(entity: entity, keys: keys.reversed()))
    }

    /// Whether a row of `entity` is to be held back: its keys were reserved.
    func holds(_ entity: Schema.Entity) -> Bool {
        batches.contains { $0.entity === entity && !$0.keys.isEmpty }
    }

    /// Holds back a row of `entity` (which ``holds(_:)``), with its stored columns' values, and
    /// returns its key.
    mutating func hold(_ row: [SQLValue], of entity: Schema.Entity, in connection: Connection) throws -> Int64 {
        let index = batches.firstIndex { $0.entity === entity }!
        let key = batches[index].keys.removeLast()
        batches[index].values.append(.integer(key))
        batches[index].values += row
        batches[index].rows += 1
        if batches[index].rows == connection.dialect.rowsPerBatch(columns: entity.sql.storedColumns.count + 1) { try write(&batches[index], in: connection) }
        return key
    }

    /// Writes every row held back.
    mutating func flush(in connection: Connection) throws {
        for index in batches.indices where batches[index].rows > 0 { try write(&batches[index], in: connection) }
    }

    private func write(_ batch: inout Batch, in connection: Connection) throws {
        try connection.statement(batch.entity.sql.insertWithKey(rows: batch.rows)).run(batch.values)
        batch.values.removeAll(keepingCapacity: true)
        batch.rows = 0
    }
}

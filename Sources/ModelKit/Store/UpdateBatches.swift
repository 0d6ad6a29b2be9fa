/// A save's updates, written as `UPDATE … FROM (VALUES …)` statements of many rows where a round
/// trip per row is what an update costs (PostgreSQL, ``SQLDialect/Batching/updates``): rows of one
/// entity with the same changed columns are held back and written up to
/// ``SQLDialect/Batching/rowsPerBatch(columns:)`` at a time; the statement returns the keys it found, so a row another instance deleted is still a
/// conflict. A lone row goes as the plain one-row update.
///
/// Updates change rows that exist, so nothing the save writes later depends on their order;
/// ``flush(in:)`` writes them all before the save's other statements.
struct UpdateBatches {
    private struct Batch {
        let entity: Schema.Entity
        /// The stored columns written, in order.
        let columns: [Int]
        /// Rows held back: each row's key, then its columns' values.
        var values: [SQLValue] = []
        var keys: [Int64] = []
    }

    private var batches: [UpdateKey: Batch] = [:]
    /// Keys of rows an update did not find.
    private var missing: [(entity: Schema.Entity, key: Int64)] = []

    /// Holds back the update of row `key` of `entity`: `row` is the values of `columns`.
    mutating func hold(_ row: [SQLValue], of entity: Schema.Entity, columns: [Int], key: Int64, as updateKey: UpdateKey, in connection: Connection) throws {
        batches[updateKey, default: Batch(entity: entity, columns: columns)].keys.append(key)
        batches[updateKey]!.values.append(.integer(key))
        batches[updateKey]!.values += row
        if batches[updateKey]!.keys.count == connection.dialect.batching.rowsPerBatch(columns: columns.count + 1) { missing += try Self.write(&batches[updateKey]!, in: connection) }
    }

    /// Writes every row held back; returns the rows that were not found (deleted meanwhile).
    mutating func flush(in connection: Connection) throws -> [(entity: Schema.Entity, key: Int64)] {
        for key in batches.keys where !batches[key]!.keys.isEmpty { missing += try Self.write(&batches[key]!, in: connection) }
        defer { missing = [] }
        return missing
    }

    /// Writes the rows held in `batch` and empties it; returns the rows not found.
    private static func write(_ batch: inout Batch, in connection: Connection) throws -> [(entity: Schema.Entity, key: Int64)] {
        defer {
            batch.values.removeAll(keepingCapacity: true)
            batch.keys.removeAll(keepingCapacity: true)
        }
        let sql = batch.entity.sql
        if batch.keys.count == 1 {
            // The key is the last parameter of the one-row update.
            try connection.statement(sql.update(columns: batch.columns)).run(Array(batch.values.dropFirst()) + [batch.values[0]])
            return connection.changes == 1 ? [] : [(batch.entity, batch.keys[0])]
        }
        let update = try connection.statement(sql.update(columns: batch.columns, rows: batch.keys.count, connection.dialect))
        try update.bind(batch.values)
        let found = Set(try update.int64s())
        return batch.keys.filter { !found.contains($0) }.map { (batch.entity, $0) }
    }
}

/// A save's inserts of many rows, written as multi-row `INSERT`s where a round trip per row is
/// what an insert costs (PostgreSQL): the rows' keys come from the table's key sequence in one
/// round trip (``TableSQL/reserveKeys(for:)``), each row's values are kept, and up to
/// ``SQLDialect/Batching/rowsPerBatch(columns:)`` rows go in one statement. 100,000 rows take about a hundred round trips
/// instead of 100,000.
///
/// Rows of an entity with one unique constraint go as multi-row upserts
/// (``TableSQL/upsertWithKey(rows:_:)``): a row whose unique value is stored updates that row and
/// takes its key instead of the one reserved, which ``takeSettled()`` reports once the statement
/// ran. Two rows of one statement cannot share a unique value, so a row repeating one held back
/// writes those first. Entities with several unique constraints are not batched: each
/// constraint's upsert is tried in turn, row by row.
///
/// No foreign key constraint orders the rows, so rows of different entities can be held back
/// together; ``flush(in:)`` writes them all before any other statement reads or changes their
/// tables.
struct InsertBatches {
    private struct Batch {
        let entity: Schema.Entity
        /// Reserved keys not yet used, last first.
        var keys: [Int64]
        /// Rows held back: each row's key, then its stored columns' values.
        var values: [SQLValue] = []
        var rows = 0
        /// For an upsert batch: where the unique constraint's columns are among a row's stored
        /// values, which of them hold numbers with a fraction (``ColumnAffinity/real``), and the
        /// unique values held back.
        var unique: (positions: [Int], reals: [Bool], held: Set<UniqueValues>)?
    }

    /// A row an upsert wrote: the key reserved for it, the key of the row written (the stored
    /// row's after a conflict), and whether it was inserted.
    struct Settled {
        let entity: Schema.Entity
        let reserved: Int64
        let key: Int64
        let inserted: Bool
    }

    private var batches: [Batch] = []
    private var settled: [Settled] = []

    /// Reserves keys for `count` new rows of `entity`, in one round trip; its inserts are then
    /// held back. Does nothing for one row, for an entity with several unique constraints, or
    /// where the dialect does not batch.
    mutating func expect(_ count: Int, of entity: Schema.Entity, in connection: Connection) throws {
        let sql = entity.sql
        guard count > 1, sql.uniqueColumns.count <= 1, let reserve = sql.reserveKeys(for: connection.dialect),
            !batches.contains(where: { $0.entity === entity })
        else { return }
        let keys = try connection.statement(reserve).rows([.integer(Int64(count))]).compactMap { row -> Int64? in
            if case .integer(let key)? = row.first { key } else { nil }
        }
        guard keys.count == count else {
            throw ModelKitError.invalidSchema(entity: entity.name, reason: "the database reserved \(keys.count) keys for \(count) rows")
        }
        var batch = Batch(entity: entity, keys: keys.reversed())
        if let constraint = sql.uniqueColumns.first {
            let positions = constraint.compactMap { sql.storedColumns.firstIndex(of: $0) }
            batch.unique = (positions, positions.map { entity.metadata[sql.storedColumns[$0]].codec?.affinity == .real }, [])
        }
        batches.append(batch)
    }

    /// Whether a row of `entity` is to be held back: its keys were reserved.
    func holds(_ entity: Schema.Entity) -> Bool {
        batches.contains { $0.entity === entity && !$0.keys.isEmpty }
    }

    /// Whether rows of `entity` are held back as upserts, whose keys are settled once written.
    func upserts(_ entity: Schema.Entity) -> Bool {
        batches.contains { $0.entity === entity && $0.unique != nil }
    }

    /// Holds back a row of `entity` (which ``holds(_:)``), with its stored columns' values, and
    /// returns the key reserved for it.
    mutating func hold(_ row: [SQLValue], of entity: Schema.Entity, in connection: Connection) throws -> Int64 {
        let index = batches.firstIndex { $0.entity === entity }!
        if let (positions, reals, _) = batches[index].unique {
            let values = UniqueValues(positions.map { row[$0] }, reals: reals)
            // A row with a NULL unique value conflicts with none.
            if !values.hasNull, batches[index].unique?.held.insert(values).inserted == false {
                settled += try Self.write(&batches[index], in: connection)
                batches[index].unique?.held.insert(values)
            }
        }
        let key = batches[index].keys.removeLast()
        batches[index].values.append(.integer(key))
        batches[index].values += row
        batches[index].rows += 1
        if batches[index].rows == connection.dialect.batching.rowsPerBatch(columns: entity.sql.storedColumns.count + 1) { settled += try Self.write(&batches[index], in: connection) }
        return key
    }

    /// Writes every row held back.
    mutating func flush(in connection: Connection) throws {
        for index in batches.indices where batches[index].rows > 0 { settled += try Self.write(&batches[index], in: connection) }
    }

    /// The upserted rows written since the last call.
    mutating func takeSettled() -> [Settled] {
        defer { settled = [] }
        return settled
    }

    /// Writes the rows held in `batch` and empties it; returns what the upsert wrote, if it is one.
    private static func write(_ batch: inout Batch, in connection: Connection) throws -> [Settled] {
        defer {
            batch.values.removeAll(keepingCapacity: true)
            batch.rows = 0
            batch.unique?.held.removeAll(keepingCapacity: true)
        }
        let sql = batch.entity.sql
        guard batch.unique != nil, let upsert = sql.upsertWithKey(rows: batch.rows, connection.dialect) else {
            try connection.statement(sql.insertWithKey(rows: batch.rows)).run(batch.values)
            return []
        }
        let width = sql.storedColumns.count + 1
        let written = try connection.statement(upsert).rows(batch.values)
        guard written.count == batch.rows else {
            throw ModelKitError.invalidSchema(entity: batch.entity.name, reason: "an upsert of \(batch.rows) rows returned \(written.count)")
        }
        var settled: [Settled] = []
        for (index, row) in written.enumerated() {
            guard row.count == 3, row[0] == .integer(Int64(index + 1)), case .integer(let key) = row[1], case .integer(let inserted) = row[2],
                case .integer(let reserved) = batch.values[index * width]
            else {
                throw ModelKitError.invalidSchema(entity: batch.entity.name, reason: "an upsert of \(batch.rows) rows returned a row it did not write")
            }
            settled.append(Settled(entity: batch.entity, reserved: reserved, key: key, inserted: inserted == 1))
        }
        return settled
    }
}

/// A row's values of a unique constraint, equal as PostgreSQL's unique index compares them: a
/// `NaN` equals a `NaN`, whatever its payload and sign, and `-0.0` equals `0.0`.
private struct UniqueValues: Hashable {
    private let values: [SQLValue]

    /// `values`, those of columns of `reals` read as doubles: a `Double`'s NaN and `-0.0` come as
    /// their bits (``Double/sqlValue``).
    init(_ values: [SQLValue], reals: [Bool]) {
        self.values = zip(values, reals).map { value, isReal in
            guard isReal, let number = Double(sqlValue: value) else { return value }
            return .real(number.isNaN ? .nan : number == 0 ? 0 : number)
        }
    }

    var hasNull: Bool { values.contains(.null) }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.values.count == rhs.values.count
            && zip(lhs.values, rhs.values).allSatisfy { left, right in
                if case .real(let a) = left, case .real(let b) = right, a.isNaN, b.isNaN { return true }
                return left == right
            }
    }

    func hash(into hasher: inout Hasher) {
        for value in values {
            if case .real(let number) = value, number.isNaN { hasher.combine("NaN") } else { hasher.combine(value) }
        }
    }
}

/// The primary keys of one save's new SQLite rows, handed out by the engine.
///
/// A key is never reused, not even after the newest rows are deleted: a context may still hold an
/// identifier of a deleted row, and it must never name a newer one. SQLite's `AUTOINCREMENT`
/// keeps that promise by reading and writing `sqlite_sequence` for every inserted row, which costs
/// about a fifth of an insert. The engine keeps it once per save instead: the first key it needs for
/// a table comes after the table's largest key and the table's mark in the store table (and, for
/// tables made before this scheme, their `sqlite_sequence` entry); ``record(in:)`` moves the marks
/// past the keys handed out, in the same transaction. The writer's transaction holds SQLite's
/// write lock throughout, so other processes' saves see the marks.
///
/// The next keys outlive the save as a ``Handover`` that the writer's next save takes up when
/// nothing but the process's saves changed the database since (the save checks SQLite's data
/// version once it holds the write lock, see ``StoreAccess/publishExternalCommitsWhileLocked(_:)``):
/// each table's largest key is then the one the writer handed out last, and the next save reads
/// none. A request that saves one row then runs no query for its key.
struct RowKeyDispenser {
    /// Each entity the writer handed keys to and its next key. A save has few entities, and rows
    /// of one come in runs, so the last one used is looked at first.
    private var next: [Next] = []
    private var last = 0
    /// Whether the store has a `sqlite_sequence` table, checked on first use.
    private var hasSequenceTable: Bool?
    /// The last save's keys, taken up on first use.
    private var handedOver: Handover?

    fileprivate struct Next {
        /// The entity whose table the keys are of: a hierarchy's root (its `rootIdentifier`).
        let root: ObjectIdentifier
        /// The store table's key for the table's mark (``markName(of:)``): kept rather than the
        /// table's SQL, so that handing the keys over copies one string.
        let mark: String
        /// The next key; nil once the largest key there is went to a row.
        var key: Int64?
        /// Whether the key is the table's largest plus one, the key SQLite gives a row inserted
        /// without one.
        var isSQLitesNext: Bool
        /// Whether this save asked for a key of the table: its mark is recorded.
        var isAsked = true
    }

    /// What a save leaves the writer's next save: each table's next key.
    struct Handover {
        fileprivate let next: [Next]
        fileprivate let hasSequenceTable: Bool?
    }

    init(takingUp handover: Handover? = nil) {
        handedOver = handover
    }

    /// What the writer's next save can take up, once this save committed.
    func handover() -> Handover {
        var next = next
        for index in next.indices { next[index].isAsked = false }
        return Handover(next: next, hasSequenceTable: hasSequenceTable)
    }

    /// The store table's key for `table`'s mark: the largest key handed out.
    static func markName(of table: TableSQL) -> String { "lastKey:\(table.name)" }

    /// The key for the next row of `entity`, and whether SQLite would pick the same for a row
    /// inserted without a key: true unless a mark or a `sqlite_sequence` entry is larger than
    /// the table's largest key (rows at the top were deleted). Call ``use(_:for:)`` with the key
    /// the row took.
    /// - Throws: ``ModelKitError/invalidSchema(entity:reason:)`` when the table has used the
    ///   largest key there is.
    mutating func next(for entity: Schema.Entity, in connection: Connection) throws -> (key: Int64, isSQLitesNext: Bool) {
        // A class hierarchy's rows share one table's keys: its root's.
        let root = entity.rootIdentifier
        if let handover = handedOver {
            handedOver = nil
            next = handover.next
            hasSequenceTable = handover.hasSequenceTable
        }
        if last >= next.count || next[last].root != root {
            if let index = next.firstIndex(where: { $0.root == root }) {
                last = index
            } else {
                let (largest, isTablesOwn) = try largestKey(of: entity.sql, in: connection)
                next.append(Next(root: root, mark: Self.markName(of: entity.sql), key: largest < .max ? largest + 1 : nil, isSQLitesNext: isTablesOwn))
                last = next.count - 1
            }
        }
        next[last].isAsked = true
        guard let key = next[last].key else {
            throw ModelKitError.invalidSchema(entity: entity.name, reason: "its table has used the largest primary key there is")
        }
        return (key, next[last].isSQLitesNext)
    }

    /// Notes that the row ``next(for:in:)`` was last asked about took `key`: the next one comes
    /// after it.
    mutating func use(_ key: Int64, for entity: Schema.Entity) {
        let root = entity.rootIdentifier
        if next[last].root != root, let index = next.firstIndex(where: { $0.root == root }) { last = index }
        guard let current = next[last].key, key >= current else { return }
        next[last].key = key < .max ? key + 1 : nil
        // The row is the table's largest now.
        next[last].isSQLitesNext = true
    }

    /// Notes that the save deleted rows before asking for keys: a table's largest row may be gone,
    /// and SQLite's pick for a row inserted without a key its key again, so every key is bound.
    mutating func noteDeletes() {
        handedOver = nil
        for index in next.indices { next[index].isSQLitesNext = false }
    }

    /// Writes each table's new mark. Call inside the transaction that inserted the rows.
    ///
    /// A table's mark is there after its first save, so each is updated in place, and only a
    /// mark that is not there yet is inserted: the upsert tried an insert first, and met the
    /// stored mark, every time.
    func record(in connection: Connection) throws {
        guard next.contains(where: \.isAsked) else { return }
        let update = try connection.statement(Migrator.updateStoredValue)
        for entry in next where entry.isAsked {
            let value = SQLValue.text(String(entry.key.map { $0 - 1 } ?? .max))
            try update.run([value, .text(entry.mark)])
            if connection.changes == 0 { try connection.statement(Migrator.setStoredValue).run([.text(entry.mark), value]) }
        }
    }

    /// The largest key `table` has had: its largest row's, its mark's, or its `sqlite_sequence`
    /// entry's, whichever is larger; and whether it is its largest row's.
    private mutating func largestKey(of table: TableSQL, in connection: Connection) throws -> (Int64, isTablesOwn: Bool) {
        if hasSequenceTable == nil {
            hasSequenceTable = try connection.hasTable(named: "sqlite_sequence")
        }
        let withSequence = hasSequenceTable == true
        let sql = withSequence ? table.largestKey.withSequence : table.largestKey.withoutSequence
        let mark = SQLValue.text(Self.markName(of: table))
        let bindings = withSequence ? [mark, .text(table.name)] : [mark]
        let row = try connection.statement(sql).rows(bindings).first ?? []
        let keys = row.compactMap { if case .integer(let key) = $0 { key } else { nil } }
        guard keys.count == bindings.count + 1, let own = keys.first, let largest = keys.max() else {
            throw ModelKitError.invalidSchema(entity: table.name, reason: "its largest primary key could not be read")
        }
        return (largest, own == largest)
    }

    /// Every key of `table`'s rows, in order. The engine hands keys out one after another, so
    /// unless rows were deleted from the middle they fill the range from the smallest to the
    /// largest; when the count says so, the keys are made from the range instead of read row by
    /// row (at a million rows, 0.01 s instead of 0.2 s).
    static func all(of table: TableSQL, in connection: Connection) throws -> [Int64] {
        let range = try connection.statement(table.keyRange).rows()
        guard let row = range.first, row.count == 3, case .integer(let count) = row[2], count > 0 else { return [] }
        if case .integer(let smallest) = row[0], case .integer(let largest) = row[1] {
            let (span, overflow) = largest.subtractingReportingOverflow(smallest)
            if !overflow, span == count - 1 { return Array(smallest...largest) }
        }
        return try connection.statement(table.selectPrimaryKeys).int64s()
    }
}

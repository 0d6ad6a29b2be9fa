import Foundation

extension SQLDialect {
    /// SQLite's SQL: one writer at a time, each statement a function call rather than a round
    /// trip, so nothing is batched or folded into the commit.
    package static let sqlite = SQLDialect(
        name: "SQLite",
        // The engine hands out keys (see ``RowKeyDispenser``): a plain `INTEGER PRIMARY KEY` reuses
        // the largest key once its row is deleted, and `AUTOINCREMENT` costs a write of
        // `sqlite_sequence` per row. Tables made with `AUTOINCREMENT` keep it.
        keys: KeyAssignment(
            primaryKeyDefinition: "\(TableSQL.quotedPrimaryKey) INTEGER PRIMARY KEY", keyType: "INTEGER", handsOut: true, insertReturnsKey: false,
            reserve: nil),
        batching: Batching(inserts: false, updates: false, maximumValues: 7_000, maximumRows: 1_000),
        failedStatements: .leaveTheTransactionUsable,
        // Tokens: the one after the newest given out (see ``HistorySQL/insert``), in commit order.
        history: HistoryRecording(
            tokenDefinition: "INTEGER PRIMARY KEY", newestToken: HistorySQL.newestToken, begin: "BEGIN IMMEDIATE", foldsIntoCommit: false,
            settledBound: nil, legacyTokens: nil),
        catalog: Catalog(
            tableNames: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
            tableExists: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
            columnNames: "SELECT name FROM pragma_table_info(?)",
            indexNames: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            setupLock: nil),
        values: ValueRules(
            textHoldsNUL: true, ordersAsStoredValuesCompare: true, noLimit: .integer(-1), truncatesOnBareDelete: true, upsertInsertedColumn: nil,
            allowsSeveralConflictTargets: true, conditionsAreBooleans: false, indexesServeOnlyPlainEquality: false),
        spelling: Spelling(
            parameter: nil,
            columnType: { $0.rawValue },
            valueType: { $0.rawValue },
            typedParameter: { _ in "?" },
            identifier: { $0 },
            // Takes the write lock at once, so a transaction never fails halfway for want of it.
            beginTransaction: "BEGIN IMMEDIATE",
            nullSafeEqual: "IS",
            nullSafeNotEqual: "IS NOT",
            total: { "total(\($0))" },
            // SQLite has no NaN: the store keeps a NaN as a blob, and a negative zero too (its own).
            isNaN: { PredicateTerm.compose("(typeof($0) = 'blob' AND $0 IS NOT $1)", $0, PredicateTerm(negativeZero)) },
            // A blob is above every number and text, so `value < x''` tells it with one comparison
            // where `typeof` calls a function; it is NULL for NULL, where the comparison is NULL
            // too, so their conjunction is the same. A stored negative zero, a blob too, fails it
            // (see Predicates.md).
            isNotNaN: { PredicateTerm.compose("($0 < x'')", $0) },
            position: { text, needle in PredicateTerm.compose("instr($0, $1)", text, needle) },
            // The Swift function every connection registers (``SQLiteFunctions``).
            localizedStandardContains: { text, needle in
                .condition("($0 = 1)", PredicateTerm.compose("modelkit_localized_standard_contains($0, $1)", text, needle))
            },
            membership: { element, array, _, hasBlobs in
                hasBlobs
                    ? PredicateTerm.compose("(hex($0) IN (SELECT value FROM json_each($1)))", element, array)
                    : PredicateTerm.compose("($0 IN (SELECT value FROM json_each($1)))", element, array)
            },
            negativeZero: negativeZero))

    /// A negative zero as ``Double/sqlValue`` stores it: the eight bytes of its bits, little-endian.
    private static let negativeZero = "x'0000000000000080'"
}

import Foundation

/// How a database differs from the SQL ModelKit writes for every database, as a value its driver
/// builds: strategies (how keys are assigned, how rows are batched, what a failed statement
/// needs, how history is recorded) and the spelling of types, catalog queries and the functions
/// predicates translate to. SQLite's is ``sqlite``, beside its driver; ModelKitPostgres builds
/// PostgreSQL's. Everything else ModelKit writes is SQL both accept: double-quoted identifiers,
/// `INSERT … ON CONFLICT`, `RETURNING`, `LIMIT … OFFSET`. Generators write parameters as `?`, so
/// that parts compose without renumbering; the dialect spells them its own way once a statement
/// is whole (``spellingParameters(of:)``), when the store prepares it.
///
/// A dialect never changes once built, and connections, plans and statements each hold it: as a
/// class, holding it costs one reference count, where a struct of its strings and closures cost
/// one for each of them (about 5,700 instructions a request of `join_unread_list`).
package final class SQLDialect: Sendable, Hashable {
    /// The database's name, for messages; dialects are equal by name (each driver builds one,
    /// once), so that translations cached for one are not used for another.
    package let name: String
    package let keys: KeyAssignment
    package let batching: Batching
    package let failedStatements: FailedStatements
    package let history: HistoryRecording
    package let catalog: Catalog
    package let values: ValueRules
    package let spelling: Spelling

    package init(
        name: String, keys: KeyAssignment, batching: Batching, failedStatements: FailedStatements, history: HistoryRecording, catalog: Catalog,
        values: ValueRules, spelling: Spelling
    ) {
        self.name = name
        self.keys = keys
        self.batching = batching
        self.failedStatements = failedStatements
        self.history = history
        self.catalog = catalog
        self.values = values
        self.spelling = spelling
    }

    package static func == (lhs: SQLDialect, rhs: SQLDialect) -> Bool { lhs.name == rhs.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }

    // MARK: Strategies

    /// How new rows get their keys. Keys are never reused, so that a key a context still holds
    /// for a deleted row can never name a newer one.
    package struct KeyAssignment: Sendable {
        /// The primary key column of a model's table.
        package var primaryKeyDefinition: String
        /// The type of the join tables' key columns.
        package var keyType: String
        /// Whether the engine hands out new rows' keys (``RowKeyDispenser``) rather than the database.
        package var handsOut: Bool
        /// Whether an insert returns its row's key (`RETURNING "_pk"`) rather than the connection
        /// telling it afterwards.
        package var insertReturnsKey: Bool
        /// Where the database makes keys, a statement taking as many new keys of the table (its
        /// SQL literal, the argument) as the bound count: a save inserting many rows gets their
        /// keys in one round trip. Nil where the engine hands keys out.
        package var reserve: (@Sendable (_ tableLiteral: String) -> String)?

        package init(
            primaryKeyDefinition: String, keyType: String, handsOut: Bool, insertReturnsKey: Bool,
            reserve: (@Sendable (_ tableLiteral: String) -> String)?
        ) {
            self.primaryKeyDefinition = primaryKeyDefinition
            self.keyType = keyType
            self.handsOut = handsOut
            self.insertReturnsKey = insertReturnsKey
            self.reserve = reserve
        }
    }

    /// How a save writes many rows: in multi-row statements where each statement is a round trip.
    package struct Batching: Sendable {
        /// Whether inserts of many rows of an entity go in multi-row statements with keys taken
        /// ahead (``InsertBatches``).
        package var inserts: Bool
        /// Whether updates of many rows go in `UPDATE … FROM (VALUES …)` statements (``UpdateBatches``).
        package var updates: Bool
        /// The most values one multi-row statement binds, and the most rows it takes.
        package var maximumValues: Int
        package var maximumRows: Int

        package init(inserts: Bool, updates: Bool, maximumValues: Int, maximumRows: Int) {
            self.inserts = inserts
            self.updates = updates
            self.maximumValues = maximumValues
            self.maximumRows = maximumRows
        }

        /// How many rows of `columns` values one multi-row statement takes.
        package func rowsPerBatch(columns: Int) -> Int {
            min(maximumRows, maximumValues / columns)
        }
    }

    /// What a statement that may fail on purpose (an upsert meeting a constraint) needs.
    package enum FailedStatements: Sendable {
        /// Nothing: the transaction goes on after it (SQLite).
        case leaveTheTransactionUsable
        /// A savepoint around it: a failure aborts the whole transaction (PostgreSQL).
        case abortTheTransaction
    }

    /// How the history table's tokens are made, and how a save records its transaction.
    package struct HistoryRecording: Sendable {
        /// The history table's key column.
        package var tokenDefinition: String
        /// The newest token given out, deleted or not: one integer, or no row.
        package var newestToken: String
        /// Starts a write transaction that records history.
        package var begin: String
        /// Whether a save's history insert goes with its `COMMIT`, in one round trip
        /// (``DatabaseConnection/commit(after:values:)``).
        package var foldsIntoCommit: Bool
        /// The first token not yet settled, where a transaction with a smaller token can commit
        /// after one with a larger token (concurrent writers): a reader following tokens stops
        /// below it. One integer; nil where one writer commits in token order.
        package var settledBound: String?
        /// Moves a history made by an older build to this dialect's tokens; nil where none did.
        package var legacyTokens: LegacyTokens?

        package init(tokenDefinition: String, newestToken: String, begin: String, foldsIntoCommit: Bool, settledBound: String?, legacyTokens: LegacyTokens?) {
            self.tokenDefinition = tokenDefinition
            self.newestToken = newestToken
            self.begin = begin
            self.foldsIntoCommit = foldsIntoCommit
            self.settledBound = settledBound
            self.legacyTokens = legacyTokens
        }

        /// Whether transactions can commit out of token order.
        package var tokensCommitOutOfOrder: Bool { settledBound != nil }
    }

    /// The statements that move a history whose tokens an older build made otherwise (see
    /// ``HistoryTable/upgradeTokens(in:)``).
    package struct LegacyTokens: Sendable {
        /// One row, `YES`, while the history has the old tokens.
        package var isLegacy: String
        /// Keeps every other connection out of the history until the transaction ends.
        package var lock: String
        /// The largest old token and the first new one: the move is safe if the first is smaller.
        package var largestAndNext: String
        /// Makes the tokens new ones.
        package var convert: String

        package init(isLegacy: String, lock: String, largestAndNext: String, convert: String) {
            self.isLegacy = isLegacy
            self.lock = lock
            self.largestAndNext = largestAndNext
            self.convert = convert
        }
    }

    /// Queries of the database's catalog.
    package struct Catalog: Sendable {
        /// The names of the database's tables, sorted: one text column.
        package var tableNames: String
        /// One row if the table named by the parameter exists.
        package var tableExists: String
        /// The column names of the table named by the parameter.
        package var columnNames: String
        /// The names of the indexes made on the table named by the parameter (not its key's).
        package var indexNames: String
        /// Keeps other connections' setups out until the transaction ends, where processes may
        /// create the same tables at once: takes the lock numbered by the parameter. Nil where a
        /// write transaction already keeps them out (SQLite's `BEGIN IMMEDIATE`).
        package var setupLock: String?

        package init(tableNames: String, tableExists: String, columnNames: String, indexNames: String, setupLock: String?) {
            self.tableNames = tableNames
            self.tableExists = tableExists
            self.columnNames = columnNames
            self.indexNames = indexNames
            self.setupLock = setupLock
        }
    }

    /// How the database treats values and conditions.
    package struct ValueRules: Sendable {
        /// Whether text can hold a NUL character. Where it cannot, such a value is refused before
        /// the save writes anything.
        package var textHoldsNUL: Bool
        /// Whether the database orders rows as ``SQLValue``'s own comparison of their stored
        /// values does, so that unsaved models can be placed among stored rows.
        package var ordersAsStoredValuesCompare: Bool
        /// The value of `LIMIT ?` that sets no limit.
        package var noLimit: SQLValue
        /// Whether a bare `DELETE FROM <table>` returns no keys and truncates, so that a batch
        /// delete of every row reads the keys first, rather than deleting with `RETURNING`.
        package var truncatesOnBareDelete: Bool
        /// What an upsert's `RETURNING` adds after the key to tell whether it inserted the row (1)
        /// or updated a stored one (0), where the database can say.
        package var upsertInsertedColumn: String?
        /// Whether `INSERT` accepts several `ON CONFLICT` clauses, one per unique constraint.
        package var allowsSeveralConflictTargets: Bool
        /// Whether a condition (`WHERE`, `AND`, `CASE WHEN`) must be a boolean, so that a stored
        /// `Bool`, an integer, is compared with 0 there, and a condition used as a value becomes
        /// an integer again.
        package var conditionsAreBooleans: Bool
        /// Whether indexes serve `=` but not the null-safe equality, so that an equality with a
        /// value that is not NULL is better written `=`.
        package var indexesServeOnlyPlainEquality: Bool

        package init(
            textHoldsNUL: Bool, ordersAsStoredValuesCompare: Bool, noLimit: SQLValue, truncatesOnBareDelete: Bool, upsertInsertedColumn: String?,
            allowsSeveralConflictTargets: Bool, conditionsAreBooleans: Bool, indexesServeOnlyPlainEquality: Bool
        ) {
            self.textHoldsNUL = textHoldsNUL
            self.ordersAsStoredValuesCompare = ordersAsStoredValuesCompare
            self.noLimit = noLimit
            self.truncatesOnBareDelete = truncatesOnBareDelete
            self.upsertInsertedColumn = upsertInsertedColumn
            self.allowsSeveralConflictTargets = allowsSeveralConflictTargets
            self.conditionsAreBooleans = conditionsAreBooleans
            self.indexesServeOnlyPlainEquality = indexesServeOnlyPlainEquality
        }
    }

    /// How the database spells types, parameters, names and the functions predicates use.
    package struct Spelling: Sendable {
        /// The `i`th parameter (from 0), or nil where `?` stays as it is.
        package var parameter: (@Sendable (Int) -> String)?
        /// The declared type of a column with an affinity.
        package var columnType: @Sendable (ColumnAffinity) -> String
        /// The type of values with an affinity, as a `CAST` names it.
        package var valueType: @Sendable (ColumnAffinity) -> String
        /// A parameter for a value stored with an affinity (or of no known affinity).
        package var typedParameter: @Sendable (ColumnAffinity?) -> String
        /// A name for a table or index the database accepts.
        package var identifier: @Sendable (String) -> String
        /// Starts a write transaction.
        package var beginTransaction: String
        /// `==` and `!=` with nil equal to nil.
        package var nullSafeEqual: String
        package var nullSafeNotEqual: String
        /// The floating-point sum of a column, 0 over no rows.
        package var total: @Sendable (String) -> String
        /// Whether a floating-point value is NaN.
        package var isNaN: @Sendable (PredicateTerm) -> PredicateTerm
        /// Whether a floating-point operand of a comparison is not NaN, for `comparison AND` this.
        package var isNotNaN: @Sendable (PredicateTerm) -> PredicateTerm
        /// The 1-based position of a needle (second) in a text (first), 0 when it is not there.
        package var position: @Sendable (_ text: PredicateTerm, _ needle: PredicateTerm) -> PredicateTerm
        /// Whether a text (first) contains a needle (second) as `String.localizedStandardContains`
        /// says, or nil when the database cannot give Swift's exact answer.
        package var localizedStandardContains: @Sendable (_ text: PredicateTerm, _ needle: PredicateTerm) -> PredicateTerm?
        /// An element `IN` a list bound as one JSON array parameter, of an affinity, with blobs or not.
        package var membership: @Sendable (_ element: PredicateTerm, _ array: PredicateTerm, ColumnAffinity, _ hasBlobs: Bool) -> PredicateTerm
        /// What a stored negative zero is, where the store keeps it apart from zero's storage
        /// (SQLite's blob of its bits); nil where the database's own type holds it. Swift finds it
        /// equal to zero, so `==` and `!=` test it apart (see ``SQLDialect/negativeZeroAsZero(_:)``).
        package var negativeZero: String?

        package init(
            parameter: (@Sendable (Int) -> String)?, columnType: @escaping @Sendable (ColumnAffinity) -> String,
            valueType: @escaping @Sendable (ColumnAffinity) -> String, typedParameter: @escaping @Sendable (ColumnAffinity?) -> String,
            identifier: @escaping @Sendable (String) -> String, beginTransaction: String, nullSafeEqual: String, nullSafeNotEqual: String,
            total: @escaping @Sendable (String) -> String, isNaN: @escaping @Sendable (PredicateTerm) -> PredicateTerm,
            isNotNaN: @escaping @Sendable (PredicateTerm) -> PredicateTerm,
            position: @escaping @Sendable (PredicateTerm, PredicateTerm) -> PredicateTerm,
            localizedStandardContains: @escaping @Sendable (PredicateTerm, PredicateTerm) -> PredicateTerm?,
            membership: @escaping @Sendable (PredicateTerm, PredicateTerm, ColumnAffinity, Bool) -> PredicateTerm,
            negativeZero: String? = nil
        ) {
            self.parameter = parameter
            self.columnType = columnType
            self.valueType = valueType
            self.typedParameter = typedParameter
            self.identifier = identifier
            self.beginTransaction = beginTransaction
            self.nullSafeEqual = nullSafeEqual
            self.nullSafeNotEqual = nullSafeNotEqual
            self.total = total
            self.isNaN = isNaN
            self.isNotNaN = isNotNaN
            self.position = position
            self.localizedStandardContains = localizedStandardContains
            self.membership = membership
            self.negativeZero = negativeZero
        }
    }

    // MARK: Spelling, as generators call it

    /// `sql`, whose parameters are written `?`, with the dialect's own parameters, and how many
    /// there are. A `?` inside a quoted string or identifier is text, not a parameter.
    func spellingParameters(of sql: String) -> (text: String, count: Int) {
        Self.replacingParameters(of: sql, with: spelling.parameter)
    }

    /// `sql` with its `?` parameters (not those inside a quoted string or identifier) replaced by
    /// `replacement(i)` for the `i`th (from 0), and how many there are. Without a replacement,
    /// `sql` stays as it is and only the count is made.
    package static func replacingParameters(of sql: String, with replacement: ((Int) -> String)?) -> (text: String, count: Int) {
        // Quotes and `?` are ASCII, and no byte of a multi-byte UTF-8 character is, so the scan
        // reads bytes.
        var output: [UInt8] = []
        if replacement != nil { output.reserveCapacity(sql.utf8.count + 16) }
        var count = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "?") {
                if let replacement { output += replacement(count).utf8 }
                count += 1
                continue
            }
            if replacement != nil { output.append(byte) }
        }
        return (replacement == nil ? sql : String(decoding: output, as: UTF8.self), count)
    }

    package func columnType(_ affinity: ColumnAffinity) -> String { spelling.columnType(affinity) }
    func valueType(_ affinity: ColumnAffinity) -> String { spelling.valueType(affinity) }
    func parameter(_ affinity: ColumnAffinity?) -> String { spelling.typedParameter(affinity) }
    func identifier(_ name: String) -> String { spelling.identifier(name) }
    func total(_ column: String) -> String { spelling.total(column) }
    func isNaN(_ value: PredicateTerm) -> PredicateTerm { spelling.isNaN(value) }
    func isNotNaN(comparing value: PredicateTerm) -> PredicateTerm { spelling.isNotNaN(value) }

    /// `value` with a stored negative zero read as zero, for the dialects that keep it apart
    /// (``Spelling/negativeZero``); nil for the others.
    func negativeZeroAsZero(_ value: PredicateTerm) -> PredicateTerm? {
        spelling.negativeZero.map { PredicateTerm.compose("(CASE $0 WHEN $1 THEN 0.0 ELSE $0 END)", value, PredicateTerm($0)) }
    }
    func position(of needle: PredicateTerm, in text: PredicateTerm) -> PredicateTerm { spelling.position(text, needle) }

    func localizedStandardContains(_ needle: PredicateTerm, in text: PredicateTerm) -> PredicateTerm? {
        spelling.localizedStandardContains(text, needle)
    }

    func membership(of element: PredicateTerm, in array: PredicateTerm, affinity: ColumnAffinity, hasBlobs: Bool) -> PredicateTerm {
        spelling.membership(element, array, affinity, hasBlobs)
    }

    /// `column IN` the primary keys bound as one JSON array parameter (see
    /// ``SQLValue/keyArray(_:)``): one statement for any number of keys.
    func isAmongBoundKeys(_ column: String) -> PredicateTerm {
        membership(of: PredicateTerm(column), in: PredicateTerm("?"), affinity: .integer, hasBlobs: false)
    }
}

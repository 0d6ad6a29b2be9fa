/// The SQL for one entity's table, generated once per schema. The primary key column is `_pk`;
/// property columns follow in schema order. A to-many has no column: selects read `NULL` in its
/// place, so that property `i` is still result column `i + 1`.
struct TableSQL: Sendable {
    static let primaryKey = "_pk"
    static let quotedPrimaryKey = primaryKey.quotedIdentifier

    /// The quoted table name.
    let table: String
    /// The table name, unquoted.
    let name: String
    /// The quoted column names, in property order.
    let columns: [String]
    /// The same, qualified by the table name, as predicates refer to them.
    let qualifiedColumns: [String]
    /// The indexes of the properties with a column in the table, in order.
    let storedColumns: [Int]
    private let properties: [Schema.PropertyMetadata]
    /// `SELECT _pk, <columns> FROM <table>`, the shape ``ModelRow`` reads.
    let select: String
    /// `SELECT _pk FROM <table>`.
    let selectPrimaryKeys: String
    /// The smallest key, the largest and the number of rows: three subqueries, so that SQLite
    /// answers each from its b-trees (the ends of the table, the smallest index's count) without
    /// reading the rows.
    let keyRange: String
    /// The largest key the table has had, by its rows and by its mark, and then by its
    /// `sqlite_sequence` entry (see ``RowKeyDispenser``): bind the mark's name, then the table's name.
    let largestKey: (withoutSequence: String, withSequence: String)
    /// ``select`` for one row, by primary key.
    let selectByPrimaryKey: String
    /// An insert of every column.
    let insert: String
    /// ``insert`` returning the new row's primary key, for dialects where the connection does
    /// not tell it.
    let insertReturningKey: String
    /// An insert of the primary key and every column, for dialects where the engine hands out
    /// keys (see ``RowKeyDispenser``).
    let insertWithKey: String
    /// ``insertWithKey`` as an upsert on every unique constraint, returning the row's primary key
    /// (the stored row's, after a conflict). Nil without unique constraints.
    let upsertWithKey: String?
    /// ``insert`` for entities with unique constraints: a conflict on any of them updates the
    /// stored row instead, and the statement returns the row's primary key. Nil without unique
    /// constraints.
    let upsert: String?
    /// The same, one statement per unique constraint, for dialects that take one conflict
    /// target per insert.
    let upsertPerConstraint: [String]
    /// A delete of one row, by primary key.
    let delete: String
    /// The indexes of the `@Attribute(.preserveValueOnDeletion)` properties with a column.
    let preservedColumns: [Int]
    /// `SELECT _pk, <preserved columns> FROM <table>`: what a delete keeps for its history
    /// tombstone. Nil when the entity preserves nothing.
    let selectPreserved: String?

    init(name: String, properties: [Schema.PropertyMetadata], uniqueConstraints: [[Schema.PropertyMetadata]]) {
        self.name = name
        table = name.quotedIdentifier
        let columns = properties.map(\.name.quotedIdentifier)
        self.columns = columns
        qualifiedColumns = columns.map { "\(name.quotedIdentifier).\($0)" }
        self.properties = properties
        let storedColumns = properties.indices.filter { properties[$0].isStoredInTable }
        self.storedColumns = storedColumns
        let pk = Self.quotedPrimaryKey
        select = "SELECT \(Self.selectList(properties, columns, qualifiedBy: nil)) FROM \(table)"
        selectPrimaryKeys = "SELECT \(pk) FROM \(table)"
        keyRange = "SELECT (SELECT min(\(pk)) FROM \(table)), (SELECT max(\(pk)) FROM \(table)), (SELECT count(*) FROM \(table))"
        let byRowsAndMark =
            "SELECT coalesce((SELECT max(\(pk)) FROM \(table)), 0), "
            + "coalesce((SELECT CAST(value AS INTEGER) FROM \(Migrator.storeTable) WHERE key = ?), 0)"
        largestKey = (byRowsAndMark, byRowsAndMark + ", coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0)")
        selectByPrimaryKey = "\(select) WHERE \(pk) = ?"
        delete = "DELETE FROM \(table) WHERE \(pk) = ?"
        let preservedColumns = storedColumns.filter { properties[$0].attribute?.options.contains(.preserveValueOnDeletion) ?? false }
        self.preservedColumns = preservedColumns
        selectPreserved = preservedColumns.isEmpty
            ? nil : "SELECT \(([pk] + preservedColumns.map { columns[$0] }).joined(separator: ", ")) FROM \(table)"
        let inserted = storedColumns.map { columns[$0] }
        let placeholders = SQL.placeholders(inserted.count)
        // A model with no stored property inserts a row of defaults.
        let insert = inserted.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES" : "INSERT INTO \(table) (\(inserted.joined(separator: ", "))) VALUES (\(placeholders))"
        self.insert = insert
        insertReturningKey = insert + " RETURNING \(pk)"
        let assignments = inserted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let conflicts = uniqueConstraints.map { constraint in
            let target = constraint.map(\.name.quotedIdentifier).joined(separator: ", ")
            return " ON CONFLICT (\(target)) DO UPDATE SET \(assignments)"
        }
        upsert = conflicts.isEmpty ? nil : insert + conflicts.joined() + " RETURNING \(pk)"
        upsertPerConstraint = conflicts.map { insert + $0 + " RETURNING \(pk)" }
        insertWithKey = "INSERT INTO \(table) (\(([pk] + inserted).joined(separator: ", "))) VALUES (\(SQL.placeholders(inserted.count + 1)))"
        upsertWithKey = conflicts.isEmpty ? nil : insertWithKey + conflicts.joined() + " RETURNING \(pk)"
    }

    /// Where the database makes keys (`GENERATED BY DEFAULT AS IDENTITY` on PostgreSQL), takes
    /// as many new keys from the key's sequence as the bound count, one per row: a save inserting
    /// many rows gets their keys in one round trip, then writes them with ``insertWithKey(rows:)``.
    /// Nil where the engine hands out keys.
    func reserveKeys(for dialect: SQLDialect) -> String? {
        guard dialect.batchesInserts else { return nil }
        let literal = "'\(table.replacingOccurrences(of: "'", with: "''"))'"
        return "SELECT nextval(pg_get_serial_sequence(\(literal), '\(Self.primaryKey)')) FROM generate_series(1, ?)"
    }

    /// ``insertWithKey`` for `rows` rows in one statement.
    func insertWithKey(rows: Int) -> String {
        let names = ([Self.quotedPrimaryKey] + storedColumns.map { columns[$0] }).joined(separator: ", ")
        let row = "(\(SQL.placeholders(storedColumns.count + 1)))"
        return "INSERT INTO \(table) (\(names)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Deletes every row of `table` (quoted).
    static func deleteAll(from table: String) -> String {
        "DELETE FROM \(table)"
    }

    /// The insert for `dialect`.
    func insert(for dialect: SQLDialect) -> String {
        dialect.insertReturnsKey ? insertReturningKey : insert
    }

    /// The upserts to try in turn for `dialect`, until one does not meet another constraint.
    func upserts(for dialect: SQLDialect) -> [String] {
        dialect.allowsSeveralConflictTargets ? upsert.map { [$0] } ?? [] : upsertPerConstraint
    }

    /// The primary key and every column, as ``select`` lists them, optionally qualified by a
    /// table alias.
    /// With `placeholders`, the columns they name read as those constants instead.
    func selectList(qualifiedBy alias: String?, replacing placeholders: [Int: String] = [:]) -> String {
        Self.selectList(properties, columns, qualifiedBy: alias, replacing: placeholders)
    }

    private static func selectList(
        _ properties: [Schema.PropertyMetadata], _ columns: [String], qualifiedBy alias: String?,
        replacing placeholders: [Int: String] = [:]
    ) -> String {
        let prefix = alias.map { "\($0.quotedIdentifier)." } ?? ""
        let selected = properties.indices.map { index in
            placeholders[index] ?? (properties[index].isStoredInTable ? prefix + columns[index] : "NULL")
        }
        return ([prefix + quotedPrimaryKey] + selected).joined(separator: ", ")
    }

    /// `CREATE TABLE` with every column. Only for schemas whose property types can all be stored.
    func createTable(_ dialect: SQLDialect) -> String {
        let definitions = [dialect.primaryKeyDefinition] + storedColumns.map { Self.columnDefinition(properties[$0], dialect) }
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"
    }

    static func columnDefinition(_ property: Schema.PropertyMetadata, _ dialect: SQLDialect) -> String {
        "\(property.name.quotedIdentifier) \(dialect.columnType(property.codec!.affinity))"
    }

    /// The name of ModelKit's index over `properties`.
    func indexName(on properties: [Schema.PropertyMetadata], unique: Bool, _ dialect: SQLDialect) -> String {
        dialect.identifier("\(name)_\(properties.map(\.name).joined(separator: "_"))_\(unique ? "unique" : "index")")
    }

    /// Creates the index over `properties` if the store lacks it.
    func createIndex(on properties: [Schema.PropertyMetadata], unique: Bool, _ dialect: SQLDialect) -> String {
        let index = indexName(on: properties, unique: unique, dialect).quotedIdentifier
        let columns = properties.map(\.name.quotedIdentifier).joined(separator: ", ")
        return "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index) ON \(table) (\(columns))"
    }

    /// An update of the given stored columns of `rows` rows in one statement, returning the keys
    /// it found: bind each row's key, then its columns' values. The values are cast to their
    /// columns' types, which a `VALUES` list does not know.
    func update(columns indexes: [Int], rows: Int, _ dialect: SQLDialect) -> String {
        let pk = Self.quotedPrimaryKey
        let types = [dialect.valueType(.integer)] + indexes.map { dialect.valueType(properties[$0].codec!.affinity) }
        let row = "(" + types.map { "CAST(? AS \($0))" }.joined(separator: ", ") + ")"
        let names = ([pk] + indexes.map { columns[$0] }).joined(separator: ", ")
        let assignments = indexes.map { "\(columns[$0]) = \"v\".\(columns[$0])" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) FROM (VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))) "
            + "AS \"v\" (\(names)) WHERE \(table).\(pk) = \"v\".\(pk) RETURNING \(table).\(pk)"
    }

    /// An update of the given stored columns of one row; the row's primary key is the last
    /// parameter.
    func update(columns indexes: [Int]) -> String {
        let assignments = indexes.map { "\(columns[$0]) = ?" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) WHERE \(Self.quotedPrimaryKey) = ?"
    }
}

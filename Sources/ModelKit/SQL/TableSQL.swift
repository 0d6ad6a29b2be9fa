/// The SQL for one entity's table, generated once per schema. The primary key column is `_pk`;
/// property columns follow in schema order. A to-many has no column: selects read `NULL` in its
/// place, so that property `i` is still result column `i + 1`.
///
/// The entities of a class hierarchy share the root's table (see ``Schema/Entity/Hierarchy``):
/// their selects read the hierarchy's columns and `_type`, a subclass's from only its classes'
/// rows, and their inserts write their class's name to `_type`.
struct TableSQL: Sendable {
    static let primaryKey = "_pk"
    static let quotedPrimaryKey = primaryKey.quotedIdentifier

    /// What a hierarchy's entity shares with the others, and what sets it apart.
    struct HierarchyLayout: Sendable {
        /// The shared table's name, unquoted: the root entity's.
        let table: String
        /// The shared table's properties, in select-list order.
        let properties: [Schema.PropertyMetadata]
        /// The entity's own `_type` value.
        let typeName: String
        /// The `_type` values of the entity's rows; nil for the root, which reads every row.
        let typeFilter: [String]?
    }

    /// The quoted table name.
    let table: String
    /// The table name, unquoted.
    let name: String
    /// What selects read from: the table, or the rows of a subclass's classes under the
    /// entity's name.
    let source: String
    /// The quoted entity name, by which selects' conditions name the rows read: the table's
    /// name, except for a subclass.
    let alias: String
    /// The quoted column names, in property order.
    let columns: [String]
    /// The same, qualified by the entity's name, as predicates refer to them.
    let qualifiedColumns: [String]
    /// The indexes of the properties with a column in the table, in order.
    let storedColumns: [Int]
    private let properties: [Schema.PropertyMetadata]
    /// The properties a select lists, and the table's: the entity's, or its hierarchy's.
    private let selectedProperties: [Schema.PropertyMetadata]
    private let hierarchy: HierarchyLayout?
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
    /// The key of one row, by primary key: whether the row is there. Made once, as a save whose
    /// only change of a row is a list (a request adding a child) asks it every time.
    let rowExists: String
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
    /// The properties of each unique constraint, by index.
    let uniqueColumns: [[Int]]
    /// The `SET` list of an upsert: every stored column (and `_type`) from `excluded`.
    private let conflictAssignments: String
    /// A delete of one row, by primary key.
    let delete: String
    /// The indexes of the `@Attribute(.preserveValueOnDeletion)` properties with a column.
    let preservedColumns: [Int]
    /// `SELECT _pk, <preserved columns> FROM <table>`: what a delete keeps for its history
    /// tombstone. Nil when the entity preserves nothing.
    let selectPreserved: String?

    init(
        name entityName: String, properties: [Schema.PropertyMetadata], uniqueConstraints: [[Schema.PropertyMetadata]],
        hierarchy: HierarchyLayout? = nil
    ) {
        let name = hierarchy?.table ?? entityName
        self.name = name
        let table = name.quotedIdentifier
        self.table = table
        self.hierarchy = hierarchy
        let columns = properties.map(\.name.quotedIdentifier)
        self.columns = columns
        alias = entityName.quotedIdentifier
        qualifiedColumns = columns.map { "\(entityName.quotedIdentifier).\($0)" }
        self.properties = properties
        selectedProperties = hierarchy?.properties ?? properties
        let storedColumns = properties.indices.filter { properties[$0].isStoredInTable }
        self.storedColumns = storedColumns
        let pk = Self.quotedPrimaryKey
        let source = hierarchy?.typeFilter == nil ? table : Self.source(table, hierarchy, as: entityName)
        self.source = source
        select = "SELECT \(Self.selectList(selectedProperties, typed: hierarchy != nil, qualifiedBy: nil)) FROM \(source)"
        selectPrimaryKeys = "SELECT \(pk) FROM \(source)"
        keyRange = "SELECT (SELECT min(\(pk)) FROM \(source)), (SELECT max(\(pk)) FROM \(source)), (SELECT count(*) FROM \(source))"
        let byRowsAndMark =
            "SELECT coalesce((SELECT max(\(pk)) FROM \(table)), 0), "
            + "coalesce((SELECT CAST(value AS INTEGER) FROM \(Migrator.storeTable) WHERE key = ?), 0)"
        largestKey = (byRowsAndMark, byRowsAndMark + ", coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0)")
        selectByPrimaryKey = "\(select) WHERE \(pk) = ?"
        rowExists = "\(selectPrimaryKeys) WHERE \(pk) = ?"
        delete = "DELETE FROM \(table) WHERE \(pk) = ?"
        let preservedColumns = storedColumns.filter { properties[$0].attribute?.options.contains(.preserveValueOnDeletion) ?? false }
        self.preservedColumns = preservedColumns
        selectPreserved = preservedColumns.isEmpty
            ? nil : "SELECT \(([pk] + preservedColumns.map { columns[$0] }).joined(separator: ", ")) FROM \(table)"
        let (names, values) = Self.inserted(storedColumns.map { columns[$0] }, hierarchy)
        // A model with no stored property inserts a row of defaults.
        let insert = names.isEmpty ? "INSERT INTO \(table) DEFAULT VALUES" : "INSERT INTO \(table) (\(names)) VALUES (\(values))"
        self.insert = insert
        insertReturningKey = insert + " RETURNING \(pk)"
        // A conflict in a hierarchy makes the stored row the inserted model's class.
        let assigned = storedColumns.map { columns[$0] } + (hierarchy == nil ? [] : [Schema.Entity.Hierarchy.quotedTypeColumn])
        let assignments = assigned.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        conflictAssignments = assignments
        uniqueColumns = uniqueConstraints.map { constraint in constraint.compactMap { unique in properties.firstIndex { $0.name == unique.name } } }
        let conflicts = uniqueConstraints.map { constraint in
            let target = constraint.map(\.name.quotedIdentifier).joined(separator: ", ")
            return " ON CONFLICT (\(target)) DO UPDATE SET \(assignments)"
        }
        upsert = conflicts.isEmpty ? nil : insert + conflicts.joined() + " RETURNING \(pk)"
        upsertPerConstraint = conflicts.map { insert + $0 + " RETURNING \(pk)" }
        let withKey = Self.inserted([pk] + storedColumns.map { columns[$0] }, hierarchy)
        insertWithKey = "INSERT INTO \(table) (\(withKey.names)) VALUES (\(withKey.values))"
        upsertWithKey = conflicts.isEmpty ? nil : insertWithKey + conflicts.joined() + " RETURNING \(pk)"
    }

    /// Where the database makes keys and batches inserts, takes as many new keys as the bound
    /// count, one per row (``SQLDialect/KeyAssignment/reserve``): a save inserting many rows gets
    /// their keys in one round trip, then writes them with ``insertWithKey(rows:)``. Nil where the
    /// engine hands out keys.
    func reserveKeys(for dialect: SQLDialect) -> String? {
        guard dialect.batching.inserts else { return nil }
        return dialect.keys.reserve?(table.sqlLiteral)
    }

    /// ``insertWithKey`` for `rows` rows in one statement.
    func insertWithKey(rows: Int) -> String {
        let (names, values) = Self.inserted([Self.quotedPrimaryKey] + storedColumns.map { columns[$0] }, hierarchy)
        let row = "(\(values))"
        return "INSERT INTO \(table) (\(names)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Deletes every row of `table` (quoted).
    static func deleteAll(from table: String) -> String {
        "DELETE FROM \(table)"
    }

    /// The insert for `dialect`.
    func insert(for dialect: SQLDialect) -> String {
        dialect.keys.insertReturnsKey ? insertReturningKey : insert
    }

    /// The upserts to try in turn for `dialect`, until one does not meet another constraint.
    func upserts(for dialect: SQLDialect) -> [String] {
        dialect.values.allowsSeveralConflictTargets ? upsert.map { [$0] } ?? [] : upsertPerConstraint
    }

    /// The column list and values list of an insert of `columns`, each a parameter, and in a
    /// hierarchy `_type`, which names the entity's class.
    private static func inserted(_ columns: [String], _ hierarchy: HierarchyLayout?) -> (names: String, values: String) {
        var names = columns
        var values = Array(repeating: "?", count: columns.count)
        if let hierarchy {
            names.append(Schema.Entity.Hierarchy.quotedTypeColumn)
            values.append(hierarchy.typeName.sqlLiteral)
        }
        return (names.joined(separator: ", "), values.joined(separator: ", "))
    }

    /// What selects read from, under `alias`.
    func source(as alias: String) -> String {
        Self.source(table, hierarchy, as: alias)
    }

    private static func source(_ table: String, _ hierarchy: HierarchyLayout?, as alias: String) -> String {
        guard let names = hierarchy?.typeFilter else { return "\(table) AS \(alias.quotedIdentifier)" }
        let types = names.map(\.sqlLiteral).joined(separator: ", ")
        return "(SELECT * FROM \(table) WHERE \(Schema.Entity.Hierarchy.quotedTypeColumn) IN (\(types))) AS \(alias.quotedIdentifier)"
    }

    /// Whether selects read only some of the table's rows: the entity is a subclass.
    var isFiltered: Bool { hierarchy?.typeFilter != nil }

    /// The primary key and every column, as ``select`` lists them (a hierarchy's every class's,
    /// then `_type`), optionally qualified by a table alias; without the properties at `omitted`,
    /// outside a hierarchy (see ``PartialFetch``).
    func selectList(qualifiedBy alias: String?, omitting omitted: Set<Int> = []) -> String {
        Self.selectList(selectedProperties, typed: hierarchy != nil, qualifiedBy: alias, omitting: omitted)
    }

    /// The number of columns ``select`` reads.
    var selectedColumnCount: Int { selectedProperties.count + (hierarchy == nil ? 1 : 2) }

    private static func selectList(
        _ properties: [Schema.PropertyMetadata], typed: Bool, qualifiedBy alias: String?, omitting omitted: Set<Int> = []
    ) -> String {
        let prefix = alias.map { "\($0.quotedIdentifier)." } ?? ""
        let selected = properties.indices.filter { !omitted.contains($0) }.map { index in
            properties[index].isStoredInTable ? prefix + properties[index].name.quotedIdentifier : "NULL"
        }
        let type = typed ? [prefix + Schema.Entity.Hierarchy.quotedTypeColumn] : []
        return ([prefix + quotedPrimaryKey] + selected + type).joined(separator: ", ")
    }

    /// `CREATE TABLE` with every column: a hierarchy's, with `_type`, for its root. Only for
    /// schemas whose property types can all be stored.
    func createTable(_ dialect: SQLDialect) -> String {
        var definitions = [dialect.keys.primaryKeyDefinition]
            + selectedProperties.filter(\.isStoredInTable).map { Self.columnDefinition($0, dialect) }
        if let hierarchy { definitions.append(Self.typeColumnDefinition(hierarchy.table, dialect)) }
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"
    }

    /// The `_type` column of a hierarchy whose root is `root`: rows stored before the root had
    /// subclasses are the root's.
    static func typeColumnDefinition(_ root: String, _ dialect: SQLDialect) -> String {
        "\(Schema.Entity.Hierarchy.quotedTypeColumn) \(dialect.columnType(.text)) NOT NULL DEFAULT \(root.sqlLiteral)"
    }

    /// The properties of a hierarchy's table; empty outside a hierarchy.
    var hierarchyProperties: [Schema.PropertyMetadata] { hierarchy == nil ? [] : selectedProperties }

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

    /// An upsert of `rows` rows on the entity's one unique constraint, in one statement: bind
    /// each row's new key, then its stored columns' values, as for ``insertWithKey(rows:)``. It
    /// returns, for each row in order (from 1), the key of the row written (the stored row's,
    /// after a conflict) and 1 if it was inserted, 0 if a conflict updated it.
    ///
    /// The rows' values come as a `VALUES` list named in a `WITH`, cast to their columns' types,
    /// and the rows written are matched back to it: by the new key for a row inserted, by the
    /// unique columns for one updated (no two rows of a statement may share them), in two joins
    /// the server can hash, not one whose `OR` would compare every pair. Nil unless
    /// the entity has exactly one unique constraint.
    func upsertWithKey(rows: Int, _ dialect: SQLDialect) -> String? {
        guard uniqueColumns.count == 1 else { return nil }
        let pk = Self.quotedPrimaryKey
        let order = "\"_modelkit_row\"", inserted = "\"_modelkit_inserted\""
        let types = [dialect.valueType(.integer)] + storedColumns.map { dialect.valueType(properties[$0].codec!.affinity) }
        let casts = types.map { "CAST(? AS \($0))" }.joined(separator: ", ")
        let values = (1...rows).map { "(\($0), \(casts))" }.joined(separator: ", ")
        let names = [pk] + storedColumns.map { columns[$0] }
        // A hierarchy's rows also write their class's name to `_type`.
        let written = names + (hierarchy == nil ? [] : [Schema.Entity.Hierarchy.quotedTypeColumn])
        let selected = names + (hierarchy.map { [$0.typeName.sqlLiteral] } ?? [])
        let unique = uniqueColumns[0].map { columns[$0] }
        let target = unique.joined(separator: ", ")
        func tuple(_ alias: String) -> String { "(" + unique.map { "\(alias).\($0)" }.joined(separator: ", ") + ")" }
        return "WITH \"v\" (\(order), \(names.joined(separator: ", "))) AS (VALUES \(values)), "
            + "\"w\" AS (INSERT INTO \(table) (\(written.joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) FROM \"v\" "
            + "ON CONFLICT (\(target)) DO UPDATE SET \(conflictAssignments) "
            + "RETURNING \(pk), \(unique.joined(separator: ", ")), \(dialect.values.upsertInsertedColumn ?? "1") AS \(inserted)) "
            + "SELECT \"v\".\(order), \"w\".\(pk), \"w\".\(inserted) FROM \"v\" JOIN \"w\" ON \"w\".\(pk) = \"v\".\(pk) WHERE \"w\".\(inserted) = 1 "
            + "UNION ALL SELECT \"v\".\(order), \"w\".\(pk), \"w\".\(inserted) FROM \"v\" JOIN \"w\" ON \(tuple("\"w\"")) = \(tuple("\"v\"")) WHERE \"w\".\(inserted) = 0 "
            + "ORDER BY 1"
    }

    /// An update of the given stored columns of one row; the row's primary key is the last
    /// parameter.
    func update(columns indexes: [Int]) -> String {
        let assignments = indexes.map { "\(columns[$0]) = ?" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) WHERE \(Self.quotedPrimaryKey) = ?"
    }
}

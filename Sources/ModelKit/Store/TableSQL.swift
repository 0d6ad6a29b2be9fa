/// The SQL for one entity's table, generated once per schema. The primary key column is `_pk`;
/// property columns follow in schema order. A to-many has no column: selects read `NULL` in its
/// place, so that property `i` is still result column `i + 1`.
struct TableSQL: Sendable {
    static let primaryKey = "_pk"
    static let quotedPrimaryKey = primaryKey.quotedIdentifier

    /// The quoted table name.
    let table: String
    private let name: String
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
    /// ``select`` for one row, by primary key.
    let selectByPrimaryKey: String
    /// An insert of every column.
    let insert: String
    /// ``insert`` for entities with unique constraints: a conflict on any of them updates the
    /// stored row instead, and the statement returns the row's primary key. Nil without unique
    /// constraints.
    let upsert: String?
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
        selectByPrimaryKey = "\(select) WHERE \(pk) = ?"
        delete = "DELETE FROM \(table) WHERE \(pk) = ?"
        let preservedColumns = storedColumns.filter { properties[$0].attribute?.options.contains(.preserveValueOnDeletion) ?? false }
        self.preservedColumns = preservedColumns
        selectPreserved = preservedColumns.isEmpty
            ? nil : "SELECT \(([pk] + preservedColumns.map { columns[$0] }).joined(separator: ", ")) FROM \(table)"
        let inserted = storedColumns.map { columns[$0] }
        let placeholders = SQL.placeholders(inserted.count)
        insert = "INSERT INTO \(table) (\(inserted.joined(separator: ", "))) VALUES (\(placeholders))"
        if uniqueConstraints.isEmpty {
            upsert = nil
        } else {
            let assignments = inserted.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let conflicts = uniqueConstraints.map { constraint in
                let target = constraint.map(\.name.quotedIdentifier).joined(separator: ", ")
                return " ON CONFLICT (\(target)) DO UPDATE SET \(assignments)"
            }
            upsert = insert + conflicts.joined() + " RETURNING \(pk)"
        }
    }

    /// The primary key and every column, as ``select`` lists them, optionally qualified by a
    /// table alias.
    func selectList(qualifiedBy alias: String?) -> String {
        Self.selectList(properties, columns, qualifiedBy: alias)
    }

    private static func selectList(_ properties: [Schema.PropertyMetadata], _ columns: [String], qualifiedBy alias: String?) -> String {
        let prefix = alias.map { "\($0.quotedIdentifier)." } ?? ""
        let selected = properties.indices.map { properties[$0].isStoredInTable ? prefix + columns[$0] : "NULL" }
        return ([prefix + quotedPrimaryKey] + selected).joined(separator: ", ")
    }

    /// `CREATE TABLE` with every column. Only for schemas whose property types can all be stored.
    var createTable: String {
        let definitions = ["\(Self.quotedPrimaryKey) INTEGER PRIMARY KEY"] + storedColumns.map { Self.columnDefinition(properties[$0]) }
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"
    }

    static func columnDefinition(_ property: Schema.PropertyMetadata) -> String {
        "\(property.name.quotedIdentifier) \(property.codec!.affinity.rawValue)"
    }

    /// The name of ModelKit's index over `properties`.
    func indexName(on properties: [Schema.PropertyMetadata], unique: Bool) -> String {
        "\(name)_\(properties.map(\.name).joined(separator: "_"))_\(unique ? "unique" : "index")"
    }

    /// Creates the index over `properties` if the store lacks it.
    func createIndex(on properties: [Schema.PropertyMetadata], unique: Bool) -> String {
        let index = indexName(on: properties, unique: unique).quotedIdentifier
        let columns = properties.map(\.name.quotedIdentifier).joined(separator: ", ")
        return "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index) ON \(table) (\(columns))"
    }

    /// An update of the given stored columns of one row; the row's primary key is the last
    /// parameter.
    func update(columns indexes: [Int]) -> String {
        let assignments = indexes.map { "\(columns[$0]) = ?" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) WHERE \(Self.quotedPrimaryKey) = ?"
    }
}

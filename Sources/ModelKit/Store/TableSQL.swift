/// Generates the SQL for one entity's table. The primary key column is `_pk`; property columns
/// follow in schema order.
struct TableSQL {
    static let primaryKey = "_pk"

    let entity: Schema.Entity

    var table: String { entity.name.quotedIdentifier }

    private var columns: [String] { entity.properties.map(\.name.quotedIdentifier) }

    func columnDefinition(_ property: Schema.PropertyMetadata) -> String {
        "\(property.name.quotedIdentifier) \(property.codec!.affinity.rawValue)"
    }

    var createTable: String {
        let definitions = ["\(Self.primaryKey.quotedIdentifier) INTEGER PRIMARY KEY"] + entity.properties.map(columnDefinition)
        return "CREATE TABLE \(table) (\(definitions.joined(separator: ", ")))"
    }

    /// Creates the index over `properties` if the store lacks it.
    func createIndex(on properties: [Schema.PropertyMetadata], unique: Bool) -> String {
        let names = properties.map(\.name)
        let index = "\(entity.name)_\(names.joined(separator: "_"))_\(unique ? "unique" : "index")".quotedIdentifier
        let columns = names.map(\.quotedIdentifier).joined(separator: ", ")
        return "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(index) ON \(table) (\(columns))"
    }

    /// `SELECT _pk, <columns> FROM <table>`, the shape ``ModelRow`` reads.
    var select: String {
        "SELECT \(([Self.primaryKey.quotedIdentifier] + columns).joined(separator: ", ")) FROM \(table)"
    }

    /// An insert of every column. With unique constraints, a conflict on any of them updates the
    /// stored row instead, and the statement returns the row's primary key.
    var insert: String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        var sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        guard !entity.uniqueConstraints.isEmpty else { return sql }
        let assignments = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        for constraint in entity.uniqueConstraints {
            let target = constraint.map(\.name.quotedIdentifier).joined(separator: ", ")
            sql += " ON CONFLICT (\(target)) DO UPDATE SET \(assignments)"
        }
        return sql + " RETURNING \(Self.primaryKey.quotedIdentifier)"
    }

    /// An update of the given columns of one row; the row's primary key is the last parameter.
    func update(columns indexes: [Int]) -> String {
        let assignments = indexes.map { "\(columns[$0]) = ?" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(assignments) WHERE \(Self.primaryKey.quotedIdentifier) = ?"
    }

    var delete: String { "DELETE FROM \(table) WHERE \(Self.primaryKey.quotedIdentifier) = ?" }

    var selectByPrimaryKey: String { "\(select) WHERE \(Self.primaryKey.quotedIdentifier) = ?" }
}

import Foundation

/// Brings a store's tables in line with a schema: automatic lightweight migration.
///
/// New entities get tables; new optional or defaulted properties get columns; `originalName`
/// renames a column; removed properties are ignored (their columns stay). A change that would need
/// data the store does not have (a new required property on a table with rows, a changed type)
/// throws ``ModelKitError/incompatibleSchemaChange(entity:property:reason:)``. Everything runs in
/// one transaction, so a failed migration leaves the store as it was.
struct Migrator {
    static let metadataTable = "_modelkit_properties"
    static let storeTable = "_modelkit_store"
    /// A value of the store's table: bind its key.
    static let storedValue = "SELECT value FROM \(storeTable) WHERE key = ?"
    /// Changes a value the store's table has: value, key.
    static let updateStoredValue = "UPDATE \(storeTable) SET value = ? WHERE key = ?"
    /// Sets a value of the store's table: key, value.
    static let setStoredValue = "INSERT INTO \(storeTable) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    /// Records how a property is stored: entity, property, storage kind, optional (0 or 1).
    private static let recordProperty =
        "INSERT INTO \(metadataTable) VALUES (?, ?, ?, ?) ON CONFLICT (entity, property) DO UPDATE SET type = excluded.type, optional = excluded.optional"

    let connection: Connection
    private var dialect: SQLDialect { connection.dialect }

    /// Throws unless the database is empty or was made by ModelKit, reading only.
    /// - Throws: ``ModelKitError/notAModelKitStore(_:tables:)`` for another program's database.
    func checkOwnership(of url: URL) throws {
        let tables = try connection.statement(dialect.catalog.tableNames).rows()
            .compactMap { row -> String? in
                if case .text(let name) = row[0] { return name }
                return nil
            }
        guard !tables.isEmpty, !tables.contains(Self.metadataTable) else { return }
        throw ModelKitError.notAModelKitStore(url, tables: tables)
    }

    /// Migrates the store to `schema` and returns the store's identifier, made when the store was
    /// created and kept in it, so that identifiers stay valid across launches.
    ///
    /// A store already migrated to this exact schema (its recorded fingerprint matches) is only
    /// read: nothing is written, so a read-only store opens.
    func migrate(_ schema: Schema) throws -> String {
        let fingerprint = schema.fingerprint
        if let identifier = try storedValue("identifier"), try storedValue("fingerprint") == fingerprint {
            return identifier
        }
        return try connection.transaction {
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS \(Self.storeTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
            try connection.statement("INSERT INTO \(Self.storeTable) VALUES ('identifier', ?) ON CONFLICT DO NOTHING")
                .run([.text(UUID().uuidString)])
            guard let identifier = try storedValue("identifier") else {
                throw ModelKitError.invalidSchema(entity: Self.storeTable, reason: "the store has no identifier")
            }
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(Self.metadataTable) (
                    entity TEXT NOT NULL, property TEXT NOT NULL, type TEXT NOT NULL, optional INTEGER NOT NULL,
                    PRIMARY KEY (entity, property))
                """)
            // A class hierarchy's table is its root's, migrated before its subclasses record theirs.
            for entity in schema.entities where entity.superentity == nil {
                try migrate(entity)
            }
            for entity in schema.entities where entity.superentity != nil {
                try migrateSubclass(entity)
            }
            try setStoredValue("fingerprint", fingerprint)
            return identifier
        }
    }

    /// A value of the store's own table, or nil if the table or the key is missing.
    func storedValue(_ key: String) throws -> String? {
        guard try connection.hasTable(named: Self.storeTable) else { return nil }
        let rows = try connection.statement("SELECT value FROM \(Self.storeTable) WHERE key = ?").rows([.text(key)])
        guard case .text(let value)? = rows.first?.first else { return nil }
        return value
    }

    /// Sets a value of the store's own table, which must exist. Call inside a transaction.
    func setStoredValue(_ key: String, _ value: String) throws {
        try connection.statement(Self.setStoredValue).run([.text(key), .text(value)])
    }

    private struct RecordedType {
        let type: String
        let isOptional: Bool
    }

    private func migrate(_ entity: Schema.Entity) throws {
        let table = entity.sql
        let existing = try columns(of: entity)
        guard !existing.isEmpty else {
            try connection.execute(table.createTable(dialect))
            try recordEntity(entity)
            for property in entity.metadata { try record(property, of: entity) }
            try createIndexes(of: entity)
            return
        }
        let recorded = try recordedTypes(of: entity)
        guard !recorded.isEmpty else {
            throw ModelKitError.incompatibleSchemaChange(
                entity: entity.name, property: "*",
                reason: "the store has a table of this name that ModelKit did not make; rename the model, or move the table")
        }
        let hasRows = try connection.statement("SELECT EXISTS (SELECT 1 FROM \(table.table))").rows()
            .first?.first == .integer(1)
        // A hierarchy's table also holds its subclasses' columns, which rows of other classes
        // leave NULL, and `_type`: adding a subclass to a model is a lightweight migration.
        let subclassProperties = table.hierarchyProperties.dropFirst(entity.metadata.count)
        if entity.hierarchy != nil, !existing.contains(Schema.Entity.Hierarchy.typeColumn) {
            try connection.execute("ALTER TABLE \(table.table) ADD COLUMN \(TableSQL.typeColumnDefinition(entity.name, dialect))")
        }
        for property in subclassProperties where property.isStoredInTable && !existing.contains(property.name) {
            try connection.execute("ALTER TABLE \(table.table) ADD COLUMN \(TableSQL.columnDefinition(property, dialect))")
        }
        for property in entity.metadata {
            let codec = property.codec!
            if !property.isStoredInTable {
                try record(property, of: entity)
                continue
            }
            if existing.contains(property.name) {
                try check(property, storedIn: property.name, against: recorded[property.name], of: entity)
            } else if let original = property.originalName, existing.contains(original) {
                try check(property, storedIn: original, against: recorded[original], of: entity)
                try connection.execute(
                    "ALTER TABLE \(table.table) RENAME COLUMN \(original.quotedIdentifier) TO \(property.name.quotedIdentifier)")
                try connection.statement("DELETE FROM \(Self.metadataTable) WHERE entity = ? AND property = ?")
                    .run([.text(entity.name), .text(original)])
            } else {
                if hasRows, !codec.isOptional, property.encodedDefault == nil {
                    throw ModelKitError.incompatibleSchemaChange(
                        entity: entity.name, property: property.name,
                        reason: "is new and not optional, has no default value, and the table already has rows")
                }
                try connection.execute("ALTER TABLE \(table.table) ADD COLUMN \(TableSQL.columnDefinition(property, dialect))")
                if let value = property.encodedDefault {
                    try connection.statement("UPDATE \(table.table) SET \(property.name.quotedIdentifier) = ?").run([value])
                }
            }
            try record(property, of: entity)
        }
        try forgetRemovedProperties(of: entity)
        try createIndexes(of: entity)
    }

    /// Records a subclass's properties, its own and inherited, and makes its indexes: its
    /// columns are in its root's table, which ``migrate(_:)`` brought in line. A column a
    /// stored subclass property had is checked against its record, as the root's are.
    private func migrateSubclass(_ entity: Schema.Entity) throws {
        let recorded = try recordedTypes(of: entity)
        try recordEntity(entity)
        for property in entity.ownProperties where property.isStoredInTable {
            try check(property, storedIn: property.name, against: recorded[property.name], of: entity)
        }
        for property in entity.metadata { try record(property, of: entity) }
        try forgetRemovedProperties(of: entity)
        try createIndexes(of: entity)
    }

    /// Marks the entity's table as ModelKit's, even for a model with no stored property.
    private func recordEntity(_ entity: Schema.Entity) throws {
        try connection.statement(Self.recordProperty).run([.text(entity.name), .text(""), .text("entity"), .integer(0)])
    }

    /// Properties the model no longer has: their columns stay, their records go.
    private func forgetRemovedProperties(of entity: Schema.Entity) throws {
        let current = entity.metadata.map { SQLValue.text($0.name) }
        try connection.statement(
            "DELETE FROM \(Self.metadataTable) WHERE entity = ? AND property <> '' AND property NOT IN (\(SQL.placeholders(current.count)))"
        ).run([.text(entity.name)] + current)
    }

    /// Whether the store holds exactly `schema`'s entities, with the same properties stored the
    /// same way: how a store that records no version is matched to a version of a plan.
    func matchesShape(of schema: Schema) throws -> Bool {
        let rows = try connection.statement("SELECT entity, property, type FROM \(Self.metadataTable) WHERE property <> ''").rows()
        var stored: [String: [String: String]] = [:]
        for row in rows {
            guard case .text(let entity) = row[0], case .text(let property) = row[1], case .text(let type) = row[2] else { continue }
            stored[entity, default: [:]][property] = type
        }
        guard Set(stored.keys) == Set(schema.entities.map(\.name)) else { return false }
        return schema.entities.allSatisfy { entity in
            let properties = stored[entity.name] ?? [:]
            return properties.count == entity.metadata.count && entity.metadata.allSatisfy { property in
                guard let recorded = properties[property.name], let codec = property.codec else { return false }
                return recorded == codec.storageKind || Self.unqualified(recorded) == Self.unqualified(codec.storedTypeName)
            }
        }
    }

    /// Whether the database has ModelKit's tables: false for a new, empty store.
    func hasModelKitTables() throws -> Bool {
        try connection.hasTable(named: Self.metadataTable)
    }

    /// A Swift type name as earlier releases recorded it, without module or outer-type prefixes:
    /// `Foundation.Date` (macOS) and `FoundationEssentials.Date` (Linux) are both `Date`.
    static func unqualified(_ typeName: String) -> String {
        var result = ""
        var word = ""
        for character in typeName {
            if character == "." {
                word = ""
            } else if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                result += word
                result.append(character)
                word = ""
            }
        }
        return result + word
    }

    /// Throws when a stored column cannot hold the property as now declared. A store recorded by
    /// an earlier release names Swift types rather than storage kinds; the same type is accepted
    /// (and re-recorded as its kind).
    private func check(
        _ property: Schema.PropertyMetadata, storedIn column: String, against recorded: RecordedType?, of entity: Schema.Entity
    ) throws {
        guard let recorded else { return }
        let codec = property.codec!
        if recorded.type != codec.storageKind, Self.unqualified(recorded.type) != Self.unqualified(codec.storedTypeName) {
            throw ModelKitError.incompatibleSchemaChange(
                entity: entity.name, property: property.name,
                reason: "changed how it is stored, from \(recorded.type) to \(codec.storageKind)")
        }
        if recorded.isOptional, !codec.isOptional {
            if let value = property.encodedDefault {
                // Optional to required with a default: stored nils take the default.
                // A subclass's column is its classes' only: other rows keep NULL.
                let ofEntity = entity.sql.isFiltered
                    ? " AND \(TableSQL.quotedPrimaryKey) IN (SELECT \(TableSQL.quotedPrimaryKey) FROM \(entity.sql.source))" : ""
                try connection.statement(
                    "UPDATE \(entity.sql.table) SET \(column.quotedIdentifier) = ? WHERE \(column.quotedIdentifier) IS NULL\(ofEntity)"
                ).run([value])
            }
            let nulls = try connection.statement(
                "SELECT COUNT(*) FROM \(entity.sql.source) WHERE \(column.quotedIdentifier) IS NULL"
            ).rows().first?.first
            if let nulls, nulls != .integer(0) {
                throw ModelKitError.incompatibleSchemaChange(
                    entity: entity.name, property: property.name,
                    reason: "is no longer optional, but stored rows have no value for it")
            }
        }
    }

    private func columns(of entity: Schema.Entity) throws -> Set<String> {
        let rows = try connection.statement(dialect.catalog.columnNames).rows([.text(entity.sql.name)])
        return Set(rows.compactMap { row in
            if case .text(let name) = row[0] { return name }
            return nil
        })
    }

    private func recordedTypes(of entity: Schema.Entity) throws -> [String: RecordedType] {
        let rows = try connection.statement("SELECT property, type, optional FROM \(Self.metadataTable) WHERE entity = ?")
            .rows([.text(entity.name)])
        var types: [String: RecordedType] = [:]
        for row in rows {
            guard case .text(let property) = row[0], case .text(let type) = row[1] else { continue }
            types[property] = RecordedType(type: type, isOptional: row[2] == .integer(1))
        }
        return types
    }

    private func record(_ property: Schema.PropertyMetadata, of entity: Schema.Entity) throws {
        let codec = property.codec!
        try connection.statement(Self.recordProperty)
            .run([.text(entity.name), .text(property.name), .text(codec.storageKind), .integer(codec.isOptional ? 1 : 0)])
    }

    /// Creates the unique constraints, indexes and join tables the store lacks. Every to-one's
    /// key column is indexed, since loading a to-many looks rows up by it.
    private func createIndexes(of entity: Schema.Entity) throws {
        for relationship in entity.orderedRelationships {
            if case .foreignKey = relationship.storage {
                try connection.execute(entity.sql.createIndex(on: [entity.metadata[relationship.column]], unique: false, dialect))
            }
            guard case .joinTable(let name, "owner", _) = relationship.storage else { continue }
            let key = dialect.keys.keyType
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(name.quotedIdentifier) ("owner" \(key) NOT NULL, "target" \(key) NOT NULL, PRIMARY KEY ("owner", "target"));
                CREATE INDEX IF NOT EXISTS \(dialect.identifier("\(name)_target").quotedIdentifier) ON \(name.quotedIdentifier) ("target")
                """)
        }
        let table = entity.sql
        for constraint in entity.uniqueConstraints {
            do {
                try connection.execute(table.createIndex(on: constraint, unique: true, dialect))
            } catch let error as any DatabaseFailure where error.isConstraintViolation {
                throw ModelKitError.incompatibleSchemaChange(
                    entity: entity.name, property: constraint.map(\.name).joined(separator: ", "),
                    reason: "became unique, but stored rows repeat values")
            }
        }
        for index in entity.indexes {
            try connection.execute(table.createIndex(on: index, unique: false, dialect))
        }
        if entity.superentity == nil { try dropStaleIndexes(of: entity) }
    }

    /// Drops the indexes ModelKit made for this entity's table that the schema no longer asks
    /// for: a removed `.unique`, `#Unique` or `#Index` stops constraining the table. A class
    /// hierarchy's table keeps those of every class.
    private func dropStaleIndexes(of entity: Schema.Entity) throws {
        let table = entity.sql
        var wanted = Set<String>()
        for entity in entity.hierarchy?.entities ?? [entity] {
            wanted.formUnion(entity.uniqueConstraints.map { table.indexName(on: $0, unique: true, dialect) })
            wanted.formUnion(entity.indexes.map { table.indexName(on: $0, unique: false, dialect) })
            for relationship in entity.orderedRelationships {
                if case .foreignKey = relationship.storage {
                    wanted.insert(table.indexName(on: [entity.metadata[relationship.column]], unique: false, dialect))
                }
            }
        }
        let existing = try connection.statement(dialect.catalog.indexNames).rows([.text(table.name)])
        for case .text(let name)? in existing.map(\.first) where !wanted.contains(name) {
            guard name.hasPrefix("\(table.name)_"), name.hasSuffix("_unique") || name.hasSuffix("_index") else { continue }
            try connection.execute("DROP INDEX \(name.quotedIdentifier)")
        }
    }
}

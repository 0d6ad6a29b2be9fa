/// The SQL over rows by key, relationships, deletes and join tables that contexts, batch
/// deletes and the schema's delete bookkeeping run, generated here from the schema's tables:
/// statements both dialects accept, with every value a parameter and every name quoted.
enum RelationshipSQL {
    private static let pk = TableSQL.quotedPrimaryKey

    /// `(?, ?, …)` for `count` keys.
    private static func list(_ count: Int) -> String { "(\(SQL.placeholders(count)))" }

    // MARK: Deleting

    /// Deletes the rows of `entity` under `count` keys, returning the keys deleted.
    static func deleteRows(of entity: Schema.Entity, count: Int) -> String {
        "DELETE FROM \(entity.sql.table) WHERE \(pk) IN \(list(count)) RETURNING \(pk)"
    }

    /// The key and preserved columns of the rows of `entity` under `count` keys, read before a
    /// delete for the history. Nil when the entity preserves nothing.
    static func preservedValues(of entity: Schema.Entity, count: Int) -> String? {
        entity.sql.selectPreserved.map { "\($0) WHERE \(pk) IN \(list(count))" }
    }

    /// A batch delete as steps that return the deleted keys, or only select them (for deletes
    /// that follow delete rules row set by row set): every row, the rows under `count` keys, or
    /// the rows a condition matches.
    static func batchDelete(
        of entity: Schema.Entity, keys count: Int? = nil, where condition: String? = nil, dialect: SQLDialect
    ) -> [BatchDeleteStep] {
        let table = entity.sql.table
        if let count {
            return [filtered(table, by: "\(pk) IN \(list(count))")]
        }
        // A subclass's rows are those of its classes, and its condition names them by the
        // entity's name: the rows to delete are selected from its source.
        if entity.sql.isFiltered {
            let selected = "SELECT \(pk) FROM \(entity.sql.source)" + (condition.map { " WHERE \($0)" } ?? "")
            return [filtered(table, by: "\(pk) IN (\(selected))")]
        }
        guard let condition else {
            // SQLite truncates a table on a bare DELETE: the keys are read first. Elsewhere one
            // DELETE returns them, in one round trip.
            guard dialect.values.truncatesOnBareDelete else {
                return [.statement(deleting: "DELETE FROM \(table) RETURNING \(pk)", selecting: entity.sql.selectPrimaryKeys)]
            }
            return [.everyKey, .statement(deleting: "DELETE FROM \(table)", selecting: "SELECT 1 WHERE 1 = 0")]
        }
        return [filtered(table, by: condition)]
    }

    /// The step that deletes the rows of `table` where `condition` holds.
    private static func filtered(_ table: String, by condition: String) -> BatchDeleteStep {
        .statement(
            deleting: "DELETE FROM \(table) WHERE \(condition) RETURNING \(pk)",
            selecting: "SELECT \(pk) FROM \(table) WHERE \(condition)")
    }

    // MARK: Following relationships

    /// The keys of the rows `relationship` (of `entity`) relates to `count` owners.
    static func relatedKeys(of relationship: RelationshipInfo, in entity: Schema.Entity, owners count: Int) -> String {
        let target = relationship.target!
        switch relationship.storage {
        case .foreignKey:
            let column = entity.sql.columns[relationship.column]
            return "SELECT \(column) FROM \(entity.sql.table) WHERE \(pk) IN \(list(count)) AND \(column) IS NOT NULL"
        case .inverseForeignKey:
            let column = target.sql.columns[relationship.inverse!.column]
            return "SELECT \(pk) FROM \(target.sql.source) WHERE \(column) IN \(list(count))"
        case .joinTable(let name, let ownerColumn, let targetColumn):
            return "SELECT \(targetColumn.quotedIdentifier) FROM \(name.quotedIdentifier) WHERE \(ownerColumn.quotedIdentifier) IN \(list(count))"
        }
    }

    /// One row if a row of `table` still refers, in `column`, to one of `count` keys.
    static func anyReference(in table: String, column: String, to count: Int) -> String {
        "SELECT 1 FROM \(table) WHERE \(column) IN \(list(count)) LIMIT 1"
    }

    /// Clears the references in `column` of `table` to `count` keys, returning the keys of the
    /// rows it changed.
    static func clearReferences(in table: String, column: String, to count: Int) -> String {
        "UPDATE \(table) SET \(column) = NULL WHERE \(column) IN \(list(count)) RETURNING \(pk)"
    }

    /// A relationship's targets in primary-key order: for a to-many, those of `count` owners; for
    /// a to-one, the targets under `count` keys.
    static func targets(of relationship: RelationshipInfo, keys count: Int) -> String {
        let target = relationship.target!
        let filter = switch relationship.storage {
        case .inverseForeignKey:
            "\(target.sql.columns[relationship.inverse!.column]) IN \(list(count))"
        case .joinTable(let name, let ownerColumn, let targetColumn):
            "\(pk) IN (SELECT \(targetColumn.quotedIdentifier) FROM \(name.quotedIdentifier) WHERE \(ownerColumn.quotedIdentifier) IN \(list(count)))"
        case .foreignKey:
            "\(pk) IN \(list(count))"
        }
        return "\(target.sql.select) WHERE \(filter) ORDER BY \(pk)"
    }

    /// The rows of `entity` under `count` keys, every column, as a fetch reads them.
    static func rows(of entity: Schema.Entity, keys count: Int) -> String {
        "\(entity.sql.select) WHERE \(pk) IN \(list(count))"
    }

    /// The rows of `entity` under the keys bound as one JSON array, every column.
    static func rows(of entity: Schema.Entity, keyedIn dialect: SQLDialect) -> String {
        "\(entity.sql.select) WHERE \(dialect.isAmongBoundKeys(pk).text)"
    }

    /// The rows of `entity` whose keys are from the first key bound through the second, every
    /// column, in key order.
    static func rowsInKeyRange(of entity: Schema.Entity) -> String {
        "\(entity.sql.select) WHERE \(pk) BETWEEN ? AND ? ORDER BY \(pk)"
    }

    /// A to-many's targets for the owners whose keys are bound, each row tagged with its owner's
    /// key in an extra last column.
    ///
    /// The owners' keys are bound as one JSON array: one statement for any number of owners,
    /// prepared once, where a list of parameters made a statement per count (a list of 10,000
    /// keys took SQLite longer to prepare than to run).
    static func prefetch(_ relationship: RelationshipInfo, dialect: SQLDialect) -> String {
        let target = relationship.target!
        func owned(by column: String) -> String { dialect.isAmongBoundKeys(column).text }
        switch relationship.storage {
        case .joinTable(let name, let ownerColumn, let targetColumn):
            let columns = target.sql.selectList(qualifiedBy: "t")
            return "SELECT \(columns), \"j\".\(ownerColumn.quotedIdentifier) FROM \(target.sql.source(as: "t")) "
                + "JOIN \(name.quotedIdentifier) AS \"j\" ON \"j\".\(targetColumn.quotedIdentifier) = \"t\".\(pk) "
                + "WHERE \(owned(by: "\"j\".\(ownerColumn.quotedIdentifier)")) ORDER BY \"t\".\(pk)"
        default:
            let foreignKey = target.sql.columns[relationship.inverse!.column]
            // By owner, then key: the order the key column's index gives, so nothing is sorted, and
            // each owner's targets still come in key order.
            return "SELECT \(target.sql.selectList(qualifiedBy: nil)), \(foreignKey) FROM \(target.sql.source) "
                + "WHERE \(owned(by: foreignKey)) ORDER BY \(foreignKey), \(pk)"
        }
    }

    // MARK: Join tables

    /// Removes an owner's links from join table `name`.
    static func unlinkAll(from name: String) -> String {
        "DELETE FROM \(name.quotedIdentifier) WHERE \"owner\" = ?"
    }

    /// Links an owner to a target in join table `name`, once.
    static func link(in name: String, targetColumn: String) -> String {
        "INSERT INTO \(name.quotedIdentifier) (\"owner\", \(targetColumn.quotedIdentifier)) VALUES (?, ?) ON CONFLICT DO NOTHING"
    }

    /// Removes the link of an owner to a target from join table `name`.
    static func unlink(in name: String, targetColumn: String) -> String {
        "DELETE FROM \(name.quotedIdentifier) WHERE \"owner\" = ? AND \(targetColumn.quotedIdentifier) = ?"
    }

    /// The targets an owner links to in join table `name`.
    static func linkedTargets(in name: String, targetColumn: String) -> String {
        "SELECT \(targetColumn.quotedIdentifier) FROM \(name.quotedIdentifier) WHERE \"owner\" = ?"
    }

    // MARK: External values

    /// The external columns of the rows of `entity` under `count` keys, or of every row (nil).
    /// Nil when the entity has none.
    static func externalValues(of entity: Schema.Entity, keys count: Int?) -> String? {
        guard !entity.externalColumns.isEmpty else { return nil }
        let columns = entity.externalColumns.sorted().map { entity.sql.columns[$0] }
        let select = "SELECT \(columns.joined(separator: ", ")) FROM \(entity.sql.table)"
        return count.map { "\(select) WHERE \(pk) IN \(list($0))" } ?? select
    }

    // MARK: Bookkeeping the schema sets up

    /// One row if a row refers, through `reference`, to the key bound.
    static func referencing(_ reference: RequiredReference) -> String {
        "SELECT 1 FROM \(reference.table) WHERE \(reference.column) = ? LIMIT 1"
    }

    /// The statement of a delete's clean-up step, which takes the deleted row's key.
    static func cleanup(_ step: DeleteCleanup) -> String {
        switch step {
        case .clearReference(let table, let column): "UPDATE \(table) SET \(column) = NULL WHERE \(column) = ?"
        case .unlink(let joinTable, let column): "DELETE FROM \(joinTable.quotedIdentifier) WHERE \(column.quotedIdentifier) = ?"
        }
    }
}

/// One step of a batch delete.
enum BatchDeleteStep {
    /// SQL that deletes rows and returns their keys, and a form that only selects those keys.
    case statement(deleting: String, selecting: String)
    /// Reading every key of the table (see ``RowKeyDispenser/all(of:in:)``), before a bare `DELETE`
    /// that returns none.
    case everyKey
}

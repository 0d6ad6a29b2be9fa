/// Deletes rows by primary key inside a write transaction, following delete rules the way single
/// deletes do, but in SQL over sets of keys: `.deny` throws if any related row exists, `.cascade`
/// deletes the related rows in turn, `.nullify` clears the references to the deleted rows, and
/// join-table links and references from relationships without an inverse are cleaned up.
struct BatchDeletion {
    let connection: Connection
    /// The keys deleted, by entity name.
    var deleted: [String: [Int64]] = [:]
    /// The keys of rows whose references were cleared, by entity name.
    var nullified: [String: [Int64]] = [:]
    /// The deletes and cleared references, for the store's history.
    var history = HistoryRecord()
    /// Whether the store keeps external files, whose names ``removedFiles`` collects.
    var collectsFiles = false
    /// The external files the deleted rows named: removed once the delete commits.
    var removedFiles: [String] = []
    private var seen: [String: Set<Int64>] = [:]
    private var deletedEntities: [Schema.Entity] = []

    /// What a batch delete did, for the context to apply.
    struct Outcome {
        /// The keys deleted, by entity name.
        let deleted: [String: [Int64]]
        /// The keys of rows whose references were cleared, by entity name.
        let nullified: [String: [Int64]]
    }

    init(connection: Connection) {
        self.connection = connection
    }

    /// Deletes the rows of `entity` that `steps` select. Following the rules, their keys are read
    /// and deleted by ``delete(_:of:)``; otherwise each step's own `DELETE` runs and its keys are
    /// recorded.
    mutating func deleteRows(of entity: Schema.Entity, steps: [DeleteStep], followingRules followsRules: Bool) throws {
        let keys = try steps.flatMap { step in
            guard case .statement(let deleting, let selecting) = step.sql else {
                return try RowKeyDispenser.all(of: entity.sql, in: connection)
            }
            let statement = try connection.statement(followsRules ? selecting : deleting)
            try statement.bind(step.bindings)
            return try statement.int64s()
        }
        if followsRules {
            if entity.directSubentities.isEmpty {
                try delete(keys, of: entity)
            } else {
                for (concrete, keys) in try byClass(keys, of: entity) { try delete(keys, of: concrete) }
            }
            try checkRequiredReferences()
        } else {
            recordDeleted(keys, of: entity)
        }
    }

    /// Deletes the rows of `entity` under `keys`, and whatever their delete rules take with them.
    /// - Throws: ``ModelKitError/deleteDenied(entity:relationship:)`` when a `.deny` relationship
    ///   has related rows; ``ModelKitError/requiredRelationshipWouldBeNil(entity:relationship:)``
    ///   when `.nullify` would clear a required to-one.
    mutating func delete(_ keys: [Int64], of entity: Schema.Entity) throws {
        let fresh = keys.filter { seen[entity.name, default: []].insert($0).inserted }
        guard !fresh.isEmpty else { return }
        if !deletedEntities.contains(where: { $0 === entity }) { deletedEntities.append(entity) }
        var cascades: [(Schema.Entity, [Int64])] = []
        for start in stride(from: 0, to: fresh.count, by: 500) {
            let chunk = Array(fresh[start..<min(start + 500, fresh.count)])
            for relationship in entity.orderedRelationships {
                switch relationship.deleteRule {
                case .deny:
                    if try !relatedKeys(of: relationship, owners: chunk, in: entity).isEmpty {
                        throw ModelKitError.deleteDenied(entity: entity.name, relationship: relationship.name)
                    }
                case .cascade:
                    cascades.append((relationship.target, try relatedKeys(of: relationship, owners: chunk, in: entity)))
                case .nullify:
                    try nullify(relationship, owners: chunk)
                default:
                    break
                }
            }
            for step in entity.cleanupOnDelete {
                let statement = try connection.statement(RelationshipSQL.cleanup(step))
                for key in chunk { try statement.run([.integer(key)]) }
            }
            let tombstones = try RelationshipSQL.preservedValues(of: entity, count: chunk.count).map { select in
                try Dictionary(uniqueKeysWithValues: connection.statement(select).rows(chunk.map { .integer($0) })
                    .map { row in (row[0], Array(row.dropFirst())) })
            }
            if collectsFiles, let select = RelationshipSQL.externalValues(of: entity, keys: chunk.count) {
                removedFiles += ExternalFiles.names(in: try connection.statement(select).rows(chunk.map { .integer($0) }))
            }
            let statement = try connection.statement(RelationshipSQL.deleteRows(of: entity, count: chunk.count))
            try statement.bind(chunk.map { .integer($0) })
            let removed = try statement.int64s()
            recordDeleted(removed, of: entity, tombstones: tombstones ?? [:])
        }
        for (target, keys) in cascades { try delete(keys, of: target) }
    }

    /// The rows under `keys` of `entity`, a class with subclasses, grouped by the class each
    /// holds: each is deleted, and recorded, as a row of its own class.
    private func byClass(_ keys: [Int64], of entity: Schema.Entity) throws -> [(Schema.Entity, [Int64])] {
        guard let hierarchy = entity.hierarchy, !keys.isEmpty else { return [] }
        let pk = TableSQL.quotedPrimaryKey
        let select = "SELECT \(pk), \(Schema.Entity.Hierarchy.quotedTypeColumn) FROM \(entity.sql.table) "
            + "WHERE \(connection.dialect.isAmongBoundKeys(pk).text)"
        var groups: [ObjectIdentifier: (Schema.Entity, [Int64])] = [:]
        for row in try connection.statement(select).rows([.keyArray(keys)]) {
            guard case .integer(let key) = row[0] else { continue }
            let concrete = if case .text(let name) = row[1] { hierarchy.entity(named: name) ?? entity } else { entity }
            groups[ObjectIdentifier(concrete), default: (concrete, [])].1.append(key)
        }
        return Array(groups.values)
    }

    /// Throws if a required to-one without an inverse still points at a deleted row, once every
    /// row is deleted.
    func checkRequiredReferences() throws {
        for entity in deletedEntities {
            try Self.checkRequiredReferences(to: deleted[entity.name] ?? [], of: entity, in: connection)
        }
    }

    /// Notes rows of `entity` deleted, with the preserved values of each (by its key), if any.
    mutating func recordDeleted(_ keys: [Int64], of entity: Schema.Entity, tombstones: [SQLValue: [SQLValue]] = [:]) {
        deleted[entity.name, default: []] += keys
        let names = entity.sql.preservedColumns.map { entity.metadata[$0].name }
        guard !names.isEmpty else { return history.delete(entity: entity.name, rowIDs: keys) }
        for key in keys {
            history.delete(entity: entity.name, rowID: key, preserved: Array(zip(names, tombstones[.integer(key)] ?? [])))
        }
    }

    /// Throws if a stored required to-one without an inverse points at one of the rows of
    /// `entity` under `keys`. Call once those rows are deleted, so that referencing rows deleted
    /// in the same transaction do not count. Single saves use it too.
    static func checkRequiredReferences(to keys: [Int64], of entity: Schema.Entity, in connection: Connection) throws {
        for reference in entity.requiredReferences {
            let statement = try connection.statement(RelationshipSQL.referencing(reference))
            for key in keys where try !statement.rows([.integer(key)]).isEmpty {
                throw ModelKitError.requiredRelationshipWouldBeNil(entity: reference.entity, relationship: reference.relationship)
            }
        }
    }

    /// The keys of the rows `relationship` relates to the owners under `owners`.
    private func relatedKeys(of relationship: RelationshipInfo, owners: [Int64], in entity: Schema.Entity) throws -> [Int64] {
        let statement = try connection.statement(RelationshipSQL.relatedKeys(of: relationship, in: entity, owners: owners.count))
        try statement.bind(owners.map { .integer($0) })
        return try statement.int64s()
    }

    /// Clears the references the inverse of `relationship` holds to the owners under `owners`.
    private mutating func nullify(_ relationship: RelationshipInfo, owners: [Int64]) throws {
        guard let inverse = relationship.inverse, !inverse.isToMany else { return }  // join tables: cleaned up with the rows
        let target = relationship.target!
        let column = target.sql.columns[inverse.column]
        let bindings = owners.map { SQLValue.integer($0) }
        if case .toOne(_, isOptional: false) = inverse.shape {
            let statement = try connection.statement(RelationshipSQL.anyReference(in: target.sql.table, column: column, to: owners.count))
            if try !statement.rows(bindings).isEmpty {
                throw ModelKitError.requiredRelationshipWouldBeNil(entity: target.name, relationship: inverse.name)
            }
            return
        }
        let statement = try connection.statement(RelationshipSQL.clearReferences(in: target.sql.table, column: column, to: owners.count))
        try statement.bind(bindings)
        let cleared = try statement.int64s()
        nullified[target.name, default: []] += cleared
        for key in cleared { history.update(entity: target.name, rowID: key, attributes: [inverse.name]) }
    }
}

/// One step of a batch delete, with the values its statement binds.
struct DeleteStep {
    let sql: BatchDeleteStep
    var bindings: [SQLValue] = []
}

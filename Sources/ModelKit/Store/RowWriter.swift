/// Writes one save's rows inside the store's write transaction, and records what it did: the
/// history of the rows it wrote, the external files it wrote (removed if the save fails) and the
/// files its rows no longer name (removed once it commits).
///
/// It knows entities, keys and values, never models: a save hands it each row's values as a
/// function of the property index. Saves reach it through ``Store/save(_:trace:author:from:on:)``,
/// which calls its steps in their order. It owns the choices a save makes per row: insert or upsert,
/// the key it hands out, the savepoint a failing statement needs where the dialect asks for one,
/// and the statement shared by rows changed alike.
struct RowWriter {
    /// A row's value at a property index, as the model holds it.
    typealias Values = (Int) throws -> SQLValue

    let connection: Connection
    private let externalFiles: ExternalFiles?
    private var keys: RowKeyDispenser
    /// Whether the save deleted rows, or ran SQL of its own that may have: a table's largest row
    /// may be gone, and its next key not the one SQLite would pick, so the keys are not handed over.
    private var mayHaveDeleted = false
    private var inserts = InsertStatements()
    private var updates = UpdateStatements()
    private var batches = InsertBatches()
    /// Rows held back as upserts that met a stored row: the key each was given, and the stored
    /// row's it took.
    private var upsertedKeys: [RowKey: Int64] = [:]
    private var updateBatches = UpdateBatches()
    /// The rows written, for the store's history; nil when the store keeps none.
    var history: HistoryRecord?
    /// External files written: removed if the transaction fails.
    private(set) var writtenFiles: [String] = []
    /// External files the rows no longer name: removed once the transaction commits.
    private(set) var replacedFiles: [String] = []

    init(connection: Connection, externalFiles: ExternalFiles?, recordsHistory: Bool) {
        self.connection = connection
        keys = RowKeyDispenser()
        self.externalFiles = externalFiles
        history = recordsHistory ? HistoryRecord() : nil
    }

    private var dialect: SQLDialect { connection.dialect }

    /// The SQL the writer's connection runs for a caller, outside the writer's statements.
    mutating func sqlOfItsOwn() -> StoreSQL {
        mayHaveDeleted = true
        return StoreSQL(connection: connection)
    }

    /// The next keys, for the writer's next save, once this one committed.
    func keyHandover() -> RowKeyDispenser.Handover? {
        mayHaveDeleted ? nil : keys.handover()
    }

    /// Takes up the keys the writer's last save left: call before the first insert, once the
    /// transaction holds the write lock and nothing else committed since that save.
    mutating func takeUpKeys(_ handover: RowKeyDispenser.Handover?) {
        keys = RowKeyDispenser(takingUp: handover)
    }

    // MARK: Inserts

    /// Inserts a row of `entity` and returns its primary key.
    ///
    /// A plain insert comes first; only when it hits a unique constraint does the upsert run,
    /// which updates the stored row and returns its key. Conflicts are rare, and the plain insert
    /// is much cheaper. The insert goes into the history as an insert; an upsert, as an update of
    /// every stored column. With several unique constraints, where the dialect takes one conflict
    /// target per insert, each constraint's upsert is tried in turn until one meets no other.
    mutating func insert(_ entity: Schema.Entity, values: Values) throws -> Int64 {
        if batches.holds(entity) {
            var row: [SQLValue] = []
            for column in entity.sql.storedColumns { row.append(try storedValue(values(column), at: column, in: entity)) }
            let key = try batches.hold(row, of: entity, in: connection)
            if batches.upserts(entity) { settleUpserts() } else { history?.insert(entity: entity.name, rowID: key) }
            return key
        }
        // Where the engine hands out keys, the new key is bound before the columns, unless it is
        // the one SQLite would pick and no upsert can leave it unused: then the row is inserted
        // without it, which spares SQLite a search of the table for the key, and takes SQLite's.
        let handedOut = dialect.keys.handsOut ? try keys.next(for: entity, in: connection) : nil
        let key = handedOut.flatMap { $0.isSQLitesNext && entity.sql.upsert == nil ? nil : $0.key }
        let rowID = try writeRow(of: entity, key: key, values: values)
        if handedOut != nil { keys.use(rowID, for: entity) }
        return rowID
    }

    /// Says that the save inserts `count` rows of `entity`: where the dialect batches inserts
    /// (``SQLDialect/Batching/inserts``), their keys are taken now and the rows written a
    /// statement's worth at a time.
    mutating func expectInserts(_ count: Int, of entity: Schema.Entity) throws {
        try batches.expect(count, of: entity, in: connection)
    }

    /// Whether rows of `entity` go in multi-row upserts: the key ``insert(_:values:)`` returns
    /// for one is the one reserved, which ``finishInserts()`` may replace with a stored row's.
    func upserts(_ entity: Schema.Entity) -> Bool {
        batches.upserts(entity)
    }

    /// Writes the rows held back and moves each table's mark past the keys handed out. Call once
    /// the save's inserts are done, before any other statement. Returns the rows held back as
    /// upserts that met a stored row: the key each was given, and the stored row's it took.
    mutating func finishInserts() throws -> [RowKey: Int64] {
        try batches.flush(in: connection)
        settleUpserts()
        try keys.record(in: connection)
        return upsertedKeys
    }

    /// Records the history of the upserts written so far, and the keys of those that met a
    /// stored row.
    private mutating func settleUpserts() {
        for row in batches.takeSettled() {
            if row.inserted {
                history?.insert(entity: row.entity.name, rowID: row.key)
            } else {
                recordUpsert(of: row.entity, rowID: row.key)
                upsertedKeys[RowKey(entity: row.entity, rowID: row.reserved)] = row.key
            }
        }
    }

    /// Inserts (or upserts) the row, under `key` if there is one, and returns its key.
    private mutating func writeRow(of entity: Schema.Entity, key: Int64?, values: Values) throws -> Int64 {
        let stored = entity.sql.storedColumns
        func bind(_ statement: Statement) throws {
            let offset = key == nil ? 0 : 1
            try statement.bind(count: stored.count + offset) { index in
                if let key, index == 0 { return .integer(key) }
                return try storedValue(values(stored[index - offset]), at: stored[index - offset], in: entity)
            }
        }
        let upserts = key == nil ? entity.sql.upserts(for: dialect) : entity.sql.upsertWithKey.map { [$0] } ?? []
        if dialect.failedStatements == .abortTheTransaction, upserts.count == 1 {
            // One unique constraint, and a failed insert would need a savepoint: upsert at once,
            // and let the statement say whether it inserted, for the history.
            let sql = dialect.values.upsertInsertedColumn.map { "\(upserts[0]), \($0)" } ?? upserts[0]
            let upsert = try connection.statement(sql)
            defer { upsert.reset() }
            try bind(upsert)
            let rowID = try insertedKey(upsert, returned: true)
            if dialect.values.upsertInsertedColumn == nil || upsert.int64(at: 1) == 1 {
                history?.insert(entity: entity.name, rowID: rowID)
            } else {
                recordUpsert(of: entity, rowID: rowID)
            }
            return rowID
        }
        let connection = connection
        let insert = try inserts.statement(for: entity, withKey: key != nil) {
            try connection.statement(key == nil ? entity.sql.insert(for: connection.dialect) : entity.sql.insertWithKey)
        }
        defer { insert.reset() }
        do {
            let rowID = try connection.recoverable(if: !upserts.isEmpty) {
                try bind(insert)
                guard let key else { return try insertedKey(insert) }
                while try insert.step() {}
                return key
            }
            history?.insert(entity: entity.name, rowID: rowID)
            return rowID
        } catch let error as any DatabaseFailure where error.isUniqueViolation && !upserts.isEmpty {
            for (index, sql) in upserts.enumerated() {
                let upsert = try connection.statement(sql)
                defer { upsert.reset() }
                do {
                    let rowID = try connection.recoverable(if: index < upserts.count - 1) {
                        try bind(upsert)
                        guard try upsert.step() else { throw error }
                        return upsert.int64(at: 0)
                    }
                    recordUpsert(of: entity, rowID: rowID)
                    return rowID
                } catch let next as any DatabaseFailure where next.isUniqueViolation && index < upserts.count - 1 {
                    continue
                }
            }
            throw error
        }
    }

    private mutating func recordUpsert(of entity: Schema.Entity, rowID: Int64) {
        history?.update(entity: entity.name, rowID: rowID, attributes: entity.sql.storedColumns.map { entity.propertyNames[$0] })
    }

    /// Runs a bound insert and returns the new row's key, as the dialect gives it.
    private func insertedKey(_ insert: Statement, returned: Bool = false) throws -> Int64 {
        guard returned || dialect.keys.insertReturnsKey else {
            while try insert.step() {}
            guard let rowID = connection.lastInsertedRowID else {
                throw ModelKitError.invalidSchema(entity: insert.sql, reason: "the database returned no key for the insert")
            }
            return rowID
        }
        guard try insert.step() else { throw ModelKitError.invalidSchema(entity: insert.sql, reason: "the insert returned no key") }
        return insert.int64(at: 0)
    }

    /// Writes the to-one at `column` of a row inserted before its target had a key.
    func setReference(of entity: Schema.Entity, rowID: Int64, column: Int, to value: SQLValue) throws {
        try connection.statement(entity.sql.update(columns: [column])).run([value, .integer(rowID)])
    }

    // MARK: Updates

    /// Writes the `changed` columns of the row under `rowID`, and returns false if the row is
    /// gone. Rows changed alike share one statement for the rest of the save. Where the dialect
    /// batches updates, the row is held back and true returned: ``finishUpdates()`` writes it
    /// and tells whether it was found.
    mutating func update(_ entity: Schema.Entity, rowID: Int64, changed: ChangedColumns, values: Values) throws -> Bool {
        let connection = connection
        let key = UpdateKey(entity: ObjectIdentifier(entity), columns: changed)
        let update = try updates.update(for: key) {
            let sorted = changed.sorted
            let columns = sorted.filter { entity.storedInTable[$0] }
            return UpdateStatements.Update(
                attributes: sorted.map { entity.propertyNames[$0] }, columns: columns,
                statement: columns.isEmpty ? nil : try connection.statement(entity.sql.update(columns: columns)))
        }
        history?.update(entity: entity.name, rowID: rowID, attributes: update.attributes)
        // A change with no column of its own (a to-many) still conflicts with a vanished row.
        guard let statement = update.statement else { return try rowExists(rowID, of: entity) }
        let columns = update.columns
        let replacesFiles = !entity.externalColumns.isEmpty && columns.contains(where: entity.externalColumns.contains)
        if dialect.batching.updates, !replacesFiles {
            var row: [SQLValue] = []
            for column in columns { row.append(try storedValue(values(column), at: column, in: entity)) }
            try updateBatches.hold(row, of: entity, columns: columns, key: rowID, as: key, in: connection)
            return true
        }
        if replacesFiles { try noteReplacedFiles(of: entity, row: rowID) }
        try statement.bind(count: columns.count + 1) { index in
            index < columns.count ? try storedValue(values(columns[index]), at: columns[index], in: entity) : .integer(rowID)
        }
        while try statement.step() {}
        return connection.changes == 1
    }

    /// Writes the updates held back; returns the keys of the rows that were gone. Call once the
    /// save's updates are done, before any other statement.
    mutating func finishUpdates() throws -> [(entity: Schema.Entity, key: Int64)] {
        try updateBatches.flush(in: connection)
    }

    private func rowExists(_ rowID: Int64, of entity: Schema.Entity) throws -> Bool {
        try connection.statement(entity.sql.rowExists).hasRow([.integer(rowID)])
    }

    // MARK: Deletes

    /// Deletes the row, and returns false if it was already gone. The delete goes into the
    /// history with the row's preserved values, read before it goes. What points at the row
    /// stays until ``clearReferences(to:of:)``.
    mutating func delete(_ entity: Schema.Entity, rowID key: Int64) throws -> Bool {
        let rowID = SQLValue.integer(key)
        mayHaveDeleted = true
        keys.noteDeletes()
        try noteReplacedFiles(of: entity, row: key)
        if history != nil {
            var preserved: [(name: String, value: SQLValue)] = []
            if let select = RelationshipSQL.preservedValues(of: entity, count: 1), let row = try connection.statement(select).rows([rowID]).first {
                preserved = zip(entity.sql.preservedColumns, row.dropFirst()).map { (entity.metadata[$0].name, $1) }
            }
            history?.delete(entity: entity.name, rowID: key, preserved: preserved)
        }
        try connection.statement(entity.sql.delete).run([rowID])
        return connection.changes == 1
    }

    /// Removes the join-table links of a deleted row, and clears the stored references to it that
    /// no in-memory inverse took care of: those written before it, and those the save wrote after
    /// ``delete(_:rowID:)``.
    func clearReferences(to key: Int64, of entity: Schema.Entity) throws {
        for step in entity.cleanupOnDelete { try connection.statement(RelationshipSQL.cleanup(step)).run([.integer(key)]) }
    }

    /// Throws if a stored required to-one still points at the deleted row. Call once every
    /// delete of the save has run: a referencing row deleted in the same save is fine.
    func checkRequiredReferences(to rowID: Int64, of entity: Schema.Entity) throws {
        try BatchDeletion.checkRequiredReferences(to: [rowID], of: entity, in: connection)
    }

    /// Deletes the rows of `entity` that `steps` select, following delete rules as
    /// ``BatchDeletion`` does, and returns what it deleted and cleared.
    mutating func deleteRows(of entity: Schema.Entity, steps: [DeleteStep], followingRules: Bool) throws -> BatchDeletion.Outcome {
        mayHaveDeleted = true
        var deletion = BatchDeletion(connection: connection)
        deletion.collectsFiles = externalFiles != nil
        try deletion.deleteRows(of: entity, steps: steps, followingRules: followingRules)
        if history != nil { history = deletion.history }
        replacedFiles += deletion.removedFiles
        return BatchDeletion.Outcome(deleted: deletion.deleted, nullified: deletion.nullified)
    }

    // MARK: Join tables

    /// The targets `owner` is linked to in a join table.
    func linkedTargets(in table: String, targetColumn: String, owner: Int64) throws -> Set<Int64> {
        let select = try connection.statement(RelationshipSQL.linkedTargets(in: table, targetColumn: targetColumn))
        try select.bind([.integer(owner)])
        return Set(try select.int64s())
    }

    /// Removes every link of `owner` from a join table.
    func unlinkAll(in table: String, owner: Int64) throws {
        try connection.statement(RelationshipSQL.unlinkAll(from: table)).run([.integer(owner)])
    }

    /// Adds the links of `owner` to `linked` and removes those to `unlinked`.
    func relink(in table: String, targetColumn: String, owner: Int64, linking linked: Set<Int64>, unlinking unlinked: Set<Int64>) throws {
        if !linked.isEmpty {
            let link = try connection.statement(RelationshipSQL.link(in: table, targetColumn: targetColumn))
            for target in linked { try link.run([.integer(owner), .integer(target)]) }
        }
        if !unlinked.isEmpty {
            let unlink = try connection.statement(RelationshipSQL.unlink(in: table, targetColumn: targetColumn))
            for target in unlinked { try unlink.run([.integer(owner), .integer(target)]) }
        }
    }

    // MARK: Values and files

    /// `value`, of the property at `column`, as the store will hold it: a large
    /// `.externalStorage` value goes to a file, and the row holds the file's name.
    /// - Throws: ``DatabaseError`` with code ``DatabaseError/Code/unsupportedValue`` for a string
    ///   with a NUL character where the dialect's text cannot hold one.
    private mutating func storedValue(_ value: SQLValue, at column: Int, in entity: Schema.Entity) throws -> SQLValue {
        if !dialect.values.textHoldsNUL, case .text(let text) = value, text.utf8.contains(0) {
            throw TextWithNUL(entity: entity.name, property: entity.metadata[column].name).databaseError
        }
        if case .blob(let data) = value, data.count >= ExternalFiles.threshold, let externalFiles,
            entity.externalColumns.contains(column)
        {
            let name = try externalFiles.write(data)
            writtenFiles.append(name)
            return .text(name)
        }
        return value
    }

    /// Notes the files the row names in its external columns, to remove once the save commits.
    private mutating func noteReplacedFiles(of entity: Schema.Entity, row rowID: Int64) throws {
        guard externalFiles != nil, let select = RelationshipSQL.externalValues(of: entity, keys: 1) else { return }
        replacedFiles += ExternalFiles.names(in: try connection.statement(select).rows([.integer(rowID)]))
    }
}

/// A save's insert statements, per entity and with or without the key: looked up once a save
/// rather than by SQL text once a row. A save has few entities, so a short list.
private struct InsertStatements {
    private var statements: [(entity: Schema.Entity, withKey: Bool, statement: Statement)] = []

    mutating func statement(for entity: Schema.Entity, withKey: Bool, _ make: () throws -> Statement) rethrows -> Statement {
        if let entry = statements.last(where: { $0.entity === entity && $0.withKey == withKey }) { return entry.statement }
        let statement = try make()
        statements.append((entity, withKey, statement))
        return statement
    }
}

/// Identifies the update statement for one entity and one set of changed columns.
struct UpdateKey: Hashable {
    let entity: ObjectIdentifier
    let columns: ChangedColumns
}

/// A save's updates, by entity and changed columns. Rows changed alike usually come in runs, so
/// the last one used is checked before hashing, and the dictionary holds the others: a save whose
/// rows all changed alike (a request's one row) never hashes.
private struct UpdateStatements {
    /// What updating a row of one entity with one set of changed columns takes.
    struct Update {
        /// The changed properties' names, in column order, for history.
        let attributes: [String]
        /// The changed columns stored in the entity's table, in order.
        let columns: [Int]
        /// The statement that writes `columns`; nil when the table stores none of them.
        let statement: Statement?
    }

    private var last: (key: UpdateKey, update: Update)?
    private var byKey: [UpdateKey: Update] = [:]

    mutating func update(for key: UpdateKey, _ make: () throws -> Update) rethrows -> Update {
        if let last {
            if last.key == key { return last.update }
            byKey[last.key] = last.update
        }
        let update = try byKey[key] ?? make()
        last = (key, update)
        return update
    }
}

import Foundation

extension ModelContext {
    /// Posted before a context saves. The object is the context.
    public static let willSave = Notification.Name("ModelKit.ModelContext.willSave")
    /// Posted after a context saves. The object is the context; the user info holds the
    /// identifiers of what was saved, under ``NotificationKey`` raw values.
    public static let didSave = Notification.Name("ModelKit.ModelContext.didSave")

    /// The keys of ``didSave``'s user info; each value is a `[PersistentIdentifier]`.
    public enum NotificationKey: String, Sendable {
        case insertedIdentifiers
        case updatedIdentifiers
        case deletedIdentifiers
    }

    /// Writes every unsaved insert, change and delete to the store, in one transaction that writes
    /// only the changed columns.
    ///
    /// Saves of every context on the store take turns at the store's one writer. When the save
    /// commits, every other context of the process merges it before its next read (the main
    /// context right away, on the main actor). Two contexts that change the same row: the last to
    /// save wins, property by property.
    ///
    /// A model inserted with an `@Attribute(.unique)` value that is already stored updates the
    /// stored row and takes its identity. If the save fails, the store is as it was before and the
    /// context keeps its unsaved changes.
    ///
    /// In a container with several stores, each store's changes commit in a transaction of their
    /// own, store by store in the container's order. If one store's save fails, the stores before
    /// it keep what they committed (``didSave`` reports it), and the context keeps the changes of
    /// that store and those after it, to save again.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` when the container does not allow saves;
    ///   ``ModelKitError/saveConflict(entity:identifiers:)`` when a changed or deleted model's row
    ///   was deleted elsewhere; ``ModelKitError/storeLocked(_:)`` when another process holds the
    ///   store; ``ModelKitError/sqlite(_:)`` when SQLite refuses a write.
    public func save() throws {
        try save(inOneTransaction: false)
    }

    /// Saves; with `inOneTransaction`, throws before writing anything when the changes span
    /// several stores, which cannot commit together.
    func save(inOneTransaction: Bool) throws {
        guard hasChanges else { return }
        registered.sweepIfGrown()
        let stores = pendingBatches().map(\.link.store)
        if let readOnly = stores.first(where: { !$0.allowsSave }) { throw ModelKitError.saveNotAllowed(readOnly.url) }
        if inOneTransaction, stores.count > 1 {
            throw ModelKitError.invalidConfiguration(
                stores[1].url.lastPathComponent,
                reason: "a transaction commits in one store, and its changes are in \(stores.map(\.url.lastPathComponent).joined(separator: " and ")); "
                    + "make each store's changes in a transaction of their own")
        }
        try prepareRelationshipsForSave()
        NotificationCenter.default.post(name: Self.willSave, object: self)
        var batches = pendingBatches()

        var saved = SaveBatch.Identifiers()
        defer {
            if !saved.isEmpty {
                NotificationCenter.default.post(
                    name: Self.didSave, object: self,
                    userInfo: [
                        NotificationKey.insertedIdentifiers.rawValue: saved.inserted,
                        NotificationKey.updatedIdentifiers.rawValue: saved.updated,
                        NotificationKey.deletedIdentifiers.rawValue: saved.deleted,
                    ])
            }
        }
        for index in batches.indices {
            try write(batches[index])
            saved.append(finish(&batches[index], all: batches.count == 1))
        }
    }

    /// The unsaved changes, one batch per store that has some (one batch, maybe empty, when the
    /// container has one store).
    private func pendingBatches() -> [SaveBatch] {
        guard links.count > 1 else {
            return [SaveBatch(link: links[0], inserted: inserted.models, changed: changed.models, deleted: deleted.models)]
        }
        var batches = links.map { SaveBatch(link: $0, inserted: [], changed: [], deleted: []) }
        func index(of model: any PersistentModel) -> Int { container.storeIndex(of: model._$modelKit.entity!) }
        for model in inserted.models { batches[index(of: model)].inserted.append(model) }
        for model in changed.models { batches[index(of: model)].changed.append(model) }
        for model in deleted.models { batches[index(of: model)].deleted.append(model) }
        return batches.filter { !$0.isEmpty }
    }

    /// Writes one store's batch in one transaction. If it fails, the store is as it was and the
    /// batch's models are as they were.
    private func write(_ batch: SaveBatch) throws {
        let store = batch.link.store
        let access = store.access
        let insertedModels = batch.inserted
        let changedModels = batch.changed
        let deletedModels = batch.deleted.filter { $0._$modelKit.rowID != nil }
        var log = SaveLog(history: store.recordsHistory ? HistoryRecord() : nil)
        let temporaryIDs = insertedModels.map(\._$modelKit.drawnTemporaryID)
        do {
            try store.write(trace: statementTrace) { connection in
                let committed = try connection.transaction {
                    // Inserted models take their keys at once, so that references to them can be written.
                    var unresolved: [(any PersistentModel, RelationshipInfo)] = []
                    var inserts = SaveInserts()
                    for model in insertedModels {
                        model._$modelKit.rowID = try insertRow(model, into: connection, inserts: &inserts, log: &log)
                        collectReferencesToUnsavedModels(of: model, into: &unresolved)
                    }
                    try inserts.keys.record(in: connection)
                    try writeForeignKeys(unresolved, in: connection)
                    var updates = UpdateStatements()
                    var vanished: [any PersistentModel] = []
                    for model in changedModels {
                        if try !updateRow(model, in: connection, statements: &updates, log: &log) { vanished.append(model) }
                    }
                    try writeJoinTables(of: insertedModels + changedModels, in: connection)
                    for model in deletedModels {
                        if try !deleteRow(model, from: connection, log: &log) { vanished.append(model) }
                    }
                    try checkRequiredReferences(to: deletedModels, in: connection)
                    if let first = vanished.first {
                        let entity = first._$modelKit.entity!
                        throw ModelKitError.saveConflict(
                            entity: entity.name,
                            identifiers: vanished.filter { $0._$modelKit.entity === entity }.map(\.persistentModelID))
                    }
                    let change = StoreChange(
                        inserted: rowIDs(insertedModels), updated: rowIDs(changedModels), deleted: rowIDs(deletedModels),
                        origin: ObjectIdentifier(store))
                    try access.announce(change, through: connection)
                    guard var record = log.history else { return (change, Int64?.none) }
                    return (change, try appendHistory(&record, to: store, in: connection))
                }
                store.externalFiles?.remove(log.replacedFiles)
                if let token = committed.1 { access.noteCommittedTransaction(token) }
                access.publish(committed.0, from: batch.link.inbox)
            }
        } catch {
            store.externalFiles?.remove(log.writtenFiles)
            for (model, temporaryID) in zip(insertedModels, temporaryIDs) { model._$modelKit.unsave(temporaryID: temporaryID) }
            if let error = error as? SQLiteError { throw store.error(for: error) }
            throw error
        }
    }

    /// Once a batch committed: its models take their new identities and leave the pending
    /// changes (all of them, when `all`, the one batch of a one-store container). Returns the
    /// identifiers saved.
    ///
    /// The inserted models' array leaves the batch, and the pending inserts go first: registering
    /// the models grows the identity map while the array is the only other list of them, and their
    /// identifiers are made once it is gone, from their keys (a million models' save peaks 16 MB
    /// lower than with the pending set, the array and the identifiers alive together).
    private func finish(_ batch: inout SaveBatch, all: Bool) -> SaveBatch.Identifiers {
        let updatedIDs = batch.changed.map(\.persistentModelID)
        let deletedIDs = batch.deleted.filter { $0._$modelKit.rowID != nil }.map(\.persistentModelID)
        var models: [any PersistentModel] = []
        swap(&models, &batch.inserted)
        if all { inserted.removeAll() } else { inserted.remove(models) }
        let insertedKeys = register(models, in: batch.link)
        models = []
        for model in batch.changed {
            model._$modelKit.changedColumns.removeAll()
            deferredListChanges.removeAll(of: model)
        }
        for model in batch.deleted {
            deferredListChanges.removeAll(of: model)
            if model._$modelKit.rowID != nil {
                registered.removeValue(forKey: RowKey(model))
            }
            model._$modelKit.leaveContext()
        }
        if all {
            changed.removeAll()
            deleted.removeAll()
        } else {
            changed.remove(batch.changed)
            deleted.remove(batch.deleted)
        }
        return SaveBatch.Identifiers(inserted: insertedKeys.identifiers, updated: updatedIDs, deleted: deletedIDs)
    }

    /// Registers newly saved models under their rows, in `link`'s store, and returns their keys.
    private func register(_ models: [any PersistentModel], in link: StoreLink) -> SavedKeys {
        var keys = SavedKeys(capacity: models.count)
        reserveRegistrations(for: models)
        for model in models {
            let storage = model._$modelKit
            storage.enter(link.handle)
            storage.isInserted = false
            storage.changedColumns.removeAll()
            guard let entity = storage.entity, let rowID = storage.rowID else {
                preconditionFailure("an inserted model has its entity from its insert, and its row from the save's write")
            }
            keys.append(rowID, of: entity, in: link.store.identity)
            if let existing = registered.insertUnlessPresent(model, for: RowKey(entity: entity, rowID: rowID)), existing !== model,
                let existing = existing as? any PersistentModel
            {
                // A unique conflict updated a row this context already has: that instance stays
                // the row's instance, and takes the values just written.
                do {
                    try reload(existing)
                } catch {
                    ModelKitDebugLog.log("could not refresh a \(type(of: existing)) after a unique conflict: \(error)")
                }
            }
        }
        return keys
    }

    /// Makes room in the identity map for newly saved models, counted by runs of one entity.
    private func reserveRegistrations(for models: [any PersistentModel]) {
        var run: (entity: Schema.Entity, count: Int)?
        for model in models {
            guard let entity = model._$modelKit.entity else { continue }
            if let current = run, current.entity === entity {
                run?.count += 1
                continue
            }
            if let run { registered.reserve(run.count, of: ObjectIdentifier(run.entity)) }
            run = (entity, 1)
        }
        if let run { registered.reserve(run.count, of: ObjectIdentifier(run.entity)) }
    }

    /// The primary keys of saved models, by entity name. Models of one entity usually come in
    /// runs, so names are hashed once per run rather than once per model.
    private func rowIDs(_ models: [any PersistentModel]) -> [String: [Int64]] {
        var keys: [String: [Int64]] = [:]
        var run: (entity: Schema.Entity, keys: [Int64])?
        for model in models {
            let storage = model._$modelKit
            guard let entity = storage.entity, let rowID = storage.rowID else { continue }
            if let current = run, current.entity !== entity {
                keys[current.entity.name, default: []] += current.keys
                run = nil
            }
            if run == nil { run = (entity, []) }
            run!.keys.append(rowID)
        }
        if let run { keys[run.entity.name, default: []] += run.keys }
        return keys
    }

    /// Inserts the model's row and returns its primary key.
    ///
    /// A plain insert comes first; only when it hits a unique constraint does the upsert run,
    /// which updates the stored row and returns its key. Conflicts are rare, and the plain insert
    /// is much cheaper.
    /// The insert goes into `history` as an insert; an upsert, as an update of every stored column.
    /// With several unique constraints, where the dialect takes one conflict target per insert,
    /// each constraint's upsert is tried in turn until one meets no other constraint.
    private func insertRow(
        _ model: any PersistentModel, into connection: Connection, inserts: inout SaveInserts, log: inout SaveLog
    ) throws -> Int64 {
        let entity = try model._$modelKit.entity ?? entity(for: type(of: model))
        let dialect = connection.dialect
        // Where the engine hands out keys, the new key is bound before the columns, unless it is
        // the one SQLite would pick and no upsert can leave it unused: then the row is inserted
        // without it, which spares SQLite a search of the table for the key, and takes SQLite's.
        let handedOut = dialect.handsOutKeys ? try inserts.keys.next(for: entity, in: connection) : nil
        let key = handedOut.flatMap { $0.isSQLitesNext && entity.sql.upsert == nil ? nil : $0.key }
        let rowID = try writeRow(of: model, entity: entity, key: key, into: connection, inserts: &inserts, log: &log)
        if handedOut != nil { inserts.keys.use(rowID, for: entity) }
        return rowID
    }

    /// Inserts (or upserts) the model's row, under `key` if there is one, and returns its key.
    private func writeRow(
        of model: any PersistentModel, entity: Schema.Entity, key: Int64?, into connection: Connection,
        inserts: inout SaveInserts, log: inout SaveLog
    ) throws -> Int64 {
        let dialect = connection.dialect
        let stored = entity.sql.storedColumns
        func bind(_ statement: Statement) throws {
            let offset = key == nil ? 0 : 1
            try statement.bind(count: stored.count + offset) { index in
                if let key, index == 0 { return .integer(key) }
                return try storedValue(of: model, at: stored[index - offset], in: entity, dialect, log: &log)
            }
        }
        let upserts = key == nil ? entity.sql.upserts(for: dialect) : entity.sql.upsertWithKey.map { [$0] } ?? []
        if !dialect.survivesFailedStatements, upserts.count == 1 {
            // One unique constraint, and a failed insert would need a savepoint: upsert at once,
            // and let the statement say whether it inserted, for the history.
            let sql = dialect.upsertInsertedColumn.map { "\(upserts[0]), \($0)" } ?? upserts[0]
            let upsert = try connection.statement(sql)
            defer { upsert.reset() }
            try bind(upsert)
            let rowID = try insertedKey(upsert, in: connection, returned: true)
            if dialect.upsertInsertedColumn == nil || upsert.int64(at: 1) == 1 {
                log.history?.insert(entity: entity.name, rowID: rowID)
            } else {
                log.history?.update(entity: entity.name, rowID: rowID, attributes: stored.map { entity.propertyNames[$0] })
            }
            return rowID
        }
        let insert = try inserts.statement(for: entity, withKey: key != nil) {
            try connection.statement(key == nil ? entity.sql.insert(for: dialect) : entity.sql.insertWithKey)
        }
        defer { insert.reset() }
        do {
            let rowID = try connection.recoverable(if: !upserts.isEmpty) {
                try bind(insert)
                guard let key else { return try insertedKey(insert, in: connection) }
                while try insert.step() {}
                return key
            }
            log.history?.insert(entity: entity.name, rowID: rowID)
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
                    log.history?.update(entity: entity.name, rowID: rowID, attributes: stored.map { entity.propertyNames[$0] })
                    return rowID
                } catch let next as any DatabaseFailure where next.isUniqueViolation && index < upserts.count - 1 {
                    continue
                }
            }
            throw error
        }
    }

    /// The value of the model's property at `column`, as the store will hold it.
    /// - Throws: ``ModelKitError/valueNotStorable(entity:property:reason:)`` for a string with a
    ///   NUL character, which PostgreSQL's text cannot hold.
    /// A large `.externalStorage` value goes to a file, and the row holds the file's name.
    private func storedValue(
        of model: any PersistentModel, at column: Int, in entity: Schema.Entity, _ dialect: SQLDialect, log: inout SaveLog
    ) throws -> SQLValue {
        let value = try model._modelKitValue(at: column)
        if !dialect.textHoldsNUL, case .text(let text) = value, text.utf8.contains(0) {
            throw ModelKitError.valueNotStorable(
                entity: entity.name, property: entity.properties[column].name, reason: "PostgreSQL text cannot hold a NUL character")
        }
        if case .blob(let data) = value, data.count >= ExternalFiles.threshold, entity.externalColumns.contains(column),
            let files = container.store(for: entity).externalFiles
        {
            let name = try files.write(data)
            log.writtenFiles.append(name)
            return .text(name)
        }
        return value
    }

    /// Notes the files the row of `model` names in the external `columns`, to remove once the
    /// save commits.
    private func noteReplacedFiles(of entity: Schema.Entity, row rowID: Int64, in connection: Connection, log: inout SaveLog) throws {
        guard container.store(for: entity).externalFiles != nil, let select = RelationshipSQL.externalValues(of: entity, keys: 1) else { return }
        log.replacedFiles += ExternalFiles.names(in: try connection.statement(select).rows([.integer(rowID)]))
    }

    /// Runs a bound insert and returns the new row's key, as the dialect gives it.
    private func insertedKey(_ insert: Statement, in connection: Connection, returned: Bool = false) throws -> Int64 {
        guard returned || connection.dialect.insertReturnsKey else {
            while try insert.step() {}
            return connection.lastInsertedRowID
        }
        guard try insert.step() else { throw ModelKitError.invalidSchema(entity: insert.sql, reason: "the insert returned no key") }
        return insert.int64(at: 0)
    }

    /// Updates the model's changed columns, and returns false if its row is gone. `statements`
    /// keeps the update statement per entity and set of changed columns for the rest of the save,
    /// so models changed alike share one.
    private func updateRow(
        _ model: any PersistentModel, in connection: Connection, statements: inout UpdateStatements,
        log: inout SaveLog
    ) throws -> Bool {
        let storage = model._$modelKit
        guard let rowID = storage.rowID, !storage.changedColumns.isEmpty else { return true }
        let entity = try storage.entity ?? entity(for: type(of: model))
        let key = UpdateKey(entity: ObjectIdentifier(entity), columns: storage.changedColumns)
        let update = try statements.update(for: key) {
            let changed = storage.changedColumns.sorted
            let columns = changed.filter { entity.storedInTable[$0] }
            return UpdateStatements.Update(
                attributes: changed.map { entity.propertyNames[$0] }, columns: columns,
                statement: columns.isEmpty ? nil : try connection.statement(entity.sql.update(columns: columns)))
        }
        log.history?.update(entity: entity.name, rowID: rowID, attributes: update.attributes)
        guard let statement = update.statement else { return try rowExists(rowID, of: entity, in: connection) }
        let columns = update.columns
        if !entity.externalColumns.isEmpty, columns.contains(where: entity.externalColumns.contains) {
            try noteReplacedFiles(of: entity, row: rowID, in: connection, log: &log)
        }
        try statement.bind(count: columns.count + 1) { index in
            index < columns.count ? try storedValue(of: model, at: columns[index], in: entity, connection.dialect, log: &log) : .integer(rowID)
        }
        while try statement.step() {}
        return connection.changes == 1
    }

    /// Whether the row is still stored, for a changed model whose changes have no column of
    /// their own (a to-many), so that a vanished row is still a conflict.
    private func rowExists(_ rowID: Int64, of entity: Schema.Entity, in connection: Connection) throws -> Bool {
        try !connection.statement(RelationshipSQL.rowExists(of: entity)).rows([.integer(rowID)]).isEmpty
    }

    /// Throws if a stored required to-one still points at a deleted row, once every delete of the
    /// save has run (a referencing row deleted in the same save is fine).
    private func checkRequiredReferences(to models: [any PersistentModel], in connection: Connection) throws {
        for model in models {
            guard let entity = model._$modelKit.entity, let rowID = model._$modelKit.rowID else { continue }
            try BatchDeletion.checkRequiredReferences(to: [rowID], of: entity, in: connection)
        }
    }

    /// Deletes the model's row, its join-table links, and stored references to it that no
    /// in-memory inverse took care of. Returns false if the row was already gone.
    /// The delete goes into `history` with the row's preserved values, read before it goes.
    private func deleteRow(_ model: any PersistentModel, from connection: Connection, log: inout SaveLog) throws -> Bool {
        let entity = try entity(for: type(of: model))
        let key = model._$modelKit.rowID!
        let rowID = SQLValue.integer(key)
        try noteReplacedFiles(of: entity, row: key, in: connection, log: &log)
        if log.history != nil {
            var preserved: [(name: String, value: SQLValue)] = []
            if let select = RelationshipSQL.preservedValues(of: entity, count: 1), let row = try connection.statement(select).rows([rowID]).first {
                preserved = zip(entity.sql.preservedColumns, row.dropFirst()).map { (entity.properties[$0].name, $1) }
            }
            log.history?.delete(entity: entity.name, rowID: key, preserved: preserved)
        }
        for step in entity.cleanupOnDelete { try connection.statement(RelationshipSQL.cleanup(step)).run([rowID]) }
        try connection.statement(entity.sql.delete).run([rowID])
        return connection.changes == 1
    }
}

/// What a save records besides its rows: its history, and the external files it wrote (removed
/// if it fails) and those its rows no longer name (removed once it commits).
struct SaveLog {
    var history: HistoryRecord?
    var writtenFiles: [String] = []
    var replacedFiles: [String] = []
}

/// One store's share of a save: the pending models whose entities it holds.
struct SaveBatch {
    let link: StoreLink
    var inserted: [any PersistentModel]
    var changed: [any PersistentModel]
    var deleted: [any PersistentModel]

    var isEmpty: Bool { inserted.isEmpty && changed.isEmpty && deleted.isEmpty }

    /// The identifiers of what saves wrote, as ``ModelContext/didSave`` reports them.
    struct Identifiers {
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []

        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

        /// Adds `other`'s identifiers; taken whole, without a copy, when there are none yet.
        mutating func append(_ other: Identifiers) {
            guard !isEmpty else { return self = other }
            inserted += other.inserted
            updated += other.updated
            deleted += other.deleted
        }
    }
}

/// The identifiers of a save's inserted models, kept as their keys, in runs of one scope, until
/// the models' array is gone: 8 bytes a model instead of an identifier's 16.
struct SavedKeys {
    private var keys: [Int64] = []
    private var runs: [(entity: Schema.Entity, scope: PersistentIdentifier.Scope, count: Int)] = []

    init(capacity: Int) {
        keys.reserveCapacity(capacity)
    }

    mutating func append(_ rowID: Int64, of entity: Schema.Entity, in store: StoreIdentity) {
        keys.append(rowID)
        if let last = runs.indices.last, runs[last].entity === entity {
            runs[last].count += 1
        } else {
            runs.append((entity, store.scope(for: entity), 1))
        }
    }

    /// The identifiers, in the order the keys came.
    var identifiers: [PersistentIdentifier] {
        var result: [PersistentIdentifier] = []
        result.reserveCapacity(keys.count)
        var index = 0
        for run in runs {
            for key in keys[index..<index + run.count] { result.append(PersistentIdentifier(scope: run.scope, key: .row(key))) }
            index += run.count
        }
        return result
    }
}

/// Identifies the update statement for one entity and one set of changed columns.
struct UpdateKey: Hashable {
    let entity: ObjectIdentifier
    let columns: ChangedColumns
}

/// A save's inserts: each entity's insert statement, looked up once a save rather than by its SQL
/// text once a row, and the keys the engine hands out.
struct SaveInserts {
    var keys = RowKeyDispenser()
    /// A save has few entities, so a short list.
    private var statements: [(entity: Schema.Entity, withKey: Bool, statement: Statement)] = []

    /// The insert statement of `entity`, with or without the key, prepared by `make` the first
    /// time.
    mutating func statement(for entity: Schema.Entity, withKey: Bool, _ make: () throws -> Statement) rethrows -> Statement {
        if let entry = statements.last(where: { $0.entity === entity && $0.withKey == withKey }) { return entry.statement }
        let statement = try make()
        statements.append((entity, withKey, statement))
        return statement
    }
}

/// A save's updates, by entity and changed columns. Models changed alike usually come in runs, so
/// the last one used is checked before hashing.
struct UpdateStatements {
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

    /// The update for `key`, made by `make` the first time.
    mutating func update(for key: UpdateKey, _ make: () throws -> Update) rethrows -> Update {
        if let last, last.key == key { return last.update }
        let update = try byKey[key] ?? make()
        byKey[key] = update
        last = (key, update)
        return update
    }
}

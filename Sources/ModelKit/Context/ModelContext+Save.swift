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
    /// A model inserted with an `@Attribute(.unique)` value that is already stored updates the
    /// stored row and takes its identity. If the save fails, the store is as it was before and the
    /// context keeps its unsaved changes.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` when the container does not allow saves;
    ///   ``ModelKitError/sqlite(_:)`` when SQLite refuses a write.
    public func save() throws {
        guard hasChanges else { return }
        guard container.store.allowsSave else { throw ModelKitError.saveNotAllowed(container.store.url) }
        try prepareRelationshipsForSave()
        NotificationCenter.default.post(name: Self.willSave, object: self)

        let insertedModels = inserted.models
        let changedModels = changed.models
        let deletedModels = deleted.models.filter { $0._$modelKit.rowID != nil }
        let connection = try connection()
        do {
            try connection.transaction {
                // Inserted models take their keys at once, so that references to them can be written.
                var unresolved: [(any PersistentModel, RelationshipInfo)] = []
                for model in insertedModels {
                    model._$modelKit.rowID = try insertRow(model, into: connection)
                    unresolved += referencesToUnsavedModels(of: model)
                }
                try writeForeignKeys(unresolved, in: connection)
                var updates: [UpdateKey: Statement] = [:]
                for model in changedModels { try updateRow(model, in: connection, statements: &updates) }
                try writeJoinTables(of: insertedModels + changedModels, in: connection)
                for model in deletedModels { try deleteRow(model, from: connection) }
            }
        } catch {
            for model in insertedModels { model._$modelKit.rowID = nil }
            if let error = error as? SQLiteError { throw ModelKitError.sqlite(error) }
            throw error
        }

        // The transaction committed: now the models take their new identities.
        let updatedIDs = changedModels.map(\.persistentModelID)
        let deletedIDs = deletedModels.map(\.persistentModelID)
        for model in insertedModels {
            let storage = model._$modelKit
            storage.storeIdentifier = container.store.identifier
            storage.isInserted = false
            storage.changedColumns.removeAll()
            let key = RowKey(model)
            if let existing = registered[key] as? any PersistentModel, existing !== model {
                // A unique conflict updated a row this context already has: that instance stays
                // the row's instance, and takes the values just written.
                do {
                    try reload(existing)
                } catch {
                    ModelKitDebugLog.log("could not refresh a \(type(of: existing)) after a unique conflict: \(error)")
                }
            } else {
                registered.insert(model, for: key)
            }
        }
        for model in changedModels { model._$modelKit.changedColumns.removeAll() }
        for model in deleted.models {
            if model._$modelKit.rowID != nil {
                registered.removeValue(forKey: RowKey(model))
            }
            model._$modelKit.context = nil
        }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()

        NotificationCenter.default.post(
            name: Self.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: insertedModels.map(\.persistentModelID),
                NotificationKey.updatedIdentifiers.rawValue: updatedIDs,
                NotificationKey.deletedIdentifiers.rawValue: deletedIDs,
            ])
    }

    /// Inserts the model's row and returns its primary key.
    ///
    /// A plain insert comes first; only when it hits a unique constraint does the upsert run,
    /// which updates the stored row and returns its key. Conflicts are rare, and the plain insert
    /// is much cheaper.
    private func insertRow(_ model: any PersistentModel, into connection: Connection) throws -> Int64 {
        let entity = try entity(for: type(of: model))
        let insert = try connection.statement(entity.sql.insert)
        let stored = entity.sql.storedColumns
        try insert.bind(count: stored.count) { try model._modelKitValue(at: stored[$0]) }
        defer { insert.reset() }
        do {
            while try insert.step() {}
            return connection.lastInsertedRowID
        } catch let error as SQLiteError where error.isUniqueViolation {
            guard let sql = entity.sql.upsert else { throw error }
            let upsert = try connection.statement(sql)
            try upsert.bind(count: stored.count) { try model._modelKitValue(at: stored[$0]) }
            defer { upsert.reset() }
            guard try upsert.step() else { throw error }
            return upsert.int64(at: 0)
        }
    }

    /// Updates the model's changed columns. `statements` keeps the update statement per entity and
    /// set of changed columns for the rest of the save, so models changed alike share one.
    private func updateRow(
        _ model: any PersistentModel, in connection: Connection, statements: inout [UpdateKey: Statement]
    ) throws {
        let storage = model._$modelKit
        guard let rowID = storage.rowID, !storage.changedColumns.isEmpty else { return }
        let entity = try entity(for: type(of: model))
        let columns = storage.changedColumns.sorted.filter { entity.properties[$0].isStoredInTable }
        guard !columns.isEmpty else { return }
        let key = UpdateKey(entity: ObjectIdentifier(entity), columns: storage.changedColumns)
        let statement: Statement
        if let cached = statements[key] {
            statement = cached
        } else {
            statement = try connection.statement(entity.sql.update(columns: columns))
            statements[key] = statement
        }
        try statement.bind(count: columns.count + 1) { index in
            index < columns.count ? try model._modelKitValue(at: columns[index]) : .integer(rowID)
        }
        while try statement.step() {}
    }

    /// Deletes the model's row, its join-table links, and stored references to it that no
    /// in-memory inverse took care of.
    private func deleteRow(_ model: any PersistentModel, from connection: Connection) throws {
        let entity = try entity(for: type(of: model))
        let rowID = SQLValue.integer(model._$modelKit.rowID!)
        for sql in entity.cleanupOnDelete { try connection.statement(sql).run([rowID]) }
        try connection.statement(entity.sql.delete).run([rowID])
    }
}

/// Identifies the update statement for one entity and one set of changed columns.
struct UpdateKey: Hashable {
    let entity: ObjectIdentifier
    let columns: ChangedColumns
}

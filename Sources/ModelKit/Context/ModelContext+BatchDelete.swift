import Foundation

extension ModelContext {
    /// Deletes every stored model of `model` matching `predicate` (all of them when nil), run now
    /// in its own transaction: one `DELETE` when the predicate translates to SQL. Registered models
    /// it deletes leave the context, marked deleted, and `didSave` reports the deleted identifiers.
    /// A predicate with no SQL translation is evaluated in Swift first, and the matching rows are
    /// deleted by primary key.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` when the container does not allow saves, or
    ///   a typed error when SQLite refuses.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        guard container.store.allowsSave else { throw ModelKitError.saveNotAllowed(container.store.url) }
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = false
        let plan = try plan(for: descriptor)
        let steps = try deleteSteps(plan, descriptor)
        let access = container.store.access
        let deleted: [Int64] = try run {
            try access.write(trace: statementTrace) { connection in
                let deleted = try connection.transaction {
                    try steps.flatMap { step in
                        let statement = try connection.statement(step.text)
                        try statement.bind(step.bindings)
                        return try statement.int64s()
                    }
                }
                if !deleted.isEmpty { access.publish(StoreChange(deleted: [plan.entity.name: deleted]), from: inbox) }
                return deleted
            }
        }
        var identifiers: [PersistentIdentifier] = []
        identifiers.reserveCapacity(deleted.count)
        for rowID in deleted {
            identifiers.append(PersistentIdentifier(entityName: plan.entity.name, storeIdentifier: container.store.identifier, key: .row(rowID)))
            guard let model = registered.removeValue(forKey: RowKey(entity: plan.entity, rowID: rowID)) as? any PersistentModel else {
                continue
            }
            changed.remove(model)
            self.deleted.remove(model)
            model._$modelKit.isDeleted = true
            model._$modelKit.context = nil
        }
        NotificationCenter.default.post(
            name: Self.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: [PersistentIdentifier](),
                NotificationKey.updatedIdentifiers.rawValue: [PersistentIdentifier](),
                NotificationKey.deletedIdentifiers.rawValue: identifiers,
            ])
    }

    /// The statements of a batch delete; together they return the deleted primary keys.
    ///
    /// Deleting every row reads the keys first and then runs a bare `DELETE`, which SQLite
    /// performs by truncating the table; a filtered delete returns its keys with `RETURNING`.
    private func deleteSteps<T: PersistentModel>(_ plan: FetchPlan<T>, _ descriptor: FetchDescriptor<T>) throws -> [SQL] {
        let table = plan.entity.sql.table
        let pk = TableSQL.quotedPrimaryKey
        guard plan.filtersInSQL else {
            let rowIDs = try fetch(descriptor).compactMap { $0._$modelKit.rowID }
            return stride(from: 0, to: rowIDs.count, by: 500).map { start in
                let chunk = rowIDs[start..<min(start + 500, rowIDs.count)]
                let placeholders = SQL.placeholders(chunk.count)
                return SQL(text: "DELETE FROM \(table) WHERE \(pk) IN (\(placeholders)) RETURNING \(pk)", bindings: chunk.map { .integer($0) })
            }
        }
        guard let whereClause = plan.whereClause else {
            return [SQL(text: plan.entity.sql.selectPrimaryKeys), SQL(text: "DELETE FROM \(table)")]
        }
        return [SQL(text: "DELETE FROM \(table)\(whereClause.text) RETURNING \(pk)", bindings: whereClause.bindings)]
    }
}

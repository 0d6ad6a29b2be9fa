import Foundation

extension ModelContext {
    /// Deletes every stored model of `model` matching `predicate` (all of them when nil), run now
    /// in its own transaction. Delete rules apply as for single deletes: `.cascade` deletes related
    /// rows, `.nullify` clears references to the deleted rows, `.deny` throws with nothing
    /// deleted, and join-table links go too. Registered models it deletes leave the context,
    /// marked deleted, and `didSave` reports the deleted identifiers.
    ///
    /// For a model without relationships this is one `DELETE` when the predicate translates to
    /// SQL. A predicate with no SQL translation is evaluated in Swift first, and the matching rows
    /// are deleted by primary key.
    ///
    /// A model class with subclasses deletes theirs too, unless `includeSubclasses` is false.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` when the container does not allow saves;
    ///   ``ModelKitError/deleteDenied(entity:relationship:)`` or
    ///   ``ModelKitError/requiredRelationshipWouldBeNil(entity:relationship:)`` when a delete rule
    ///   refuses; ``ModelKitError/database(_:)`` when the database refuses or fails.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        if let (entity, custom) = try customStore(for: T.self) {
            return try customDelete(T.self, where: predicate, includeSubclasses: includeSubclasses, entity: entity, in: custom)
        }
        let link = link(for: try entity(for: T.self))
        let store = link.store
        guard store.allowsSave else { throw ModelKitError.saveNotAllowed(store.url) }
        var descriptor = FetchDescriptor<T>(predicate: predicate)
        descriptor.includePendingChanges = false
        let plan = try plan(for: descriptor)
        let steps = try deleteSteps(plan, descriptor, includeSubclasses: includeSubclasses)
        let entity = plan.entity
        // A class with subclasses deletes each row as its own class: by key, following rules.
        let followsRules =
            !entity.directSubentities.isEmpty || !entity.relationshipsByColumn.isEmpty || !entity.cleanupOnDelete.isEmpty
            || !entity.requiredReferences.isEmpty || entity.sql.selectPreserved != nil
            || (!entity.externalColumns.isEmpty && store.externalFiles != nil)
        let outcome = try run(on: link) {
            try store.deleteRows(of: entity, steps: steps, followingRules: followsRules, in: session(of: link))
        }
        try apply(outcome, in: store)
    }

    /// Makes the context agree with a committed batch delete, and announces it with `didSave`.
    private func apply(_ outcome: BatchDeletion.Outcome, in store: Store) throws {
        var identifiers: [PersistentIdentifier] = []
        for (name, keys) in outcome.deleted {
            guard let entity = container.schema.entity(named: name) else { continue }
            identifiers.reserveCapacity(identifiers.count + keys.count)
            let scope = store.identity.scope(for: entity)
            for rowID in keys {
                identifiers.append(PersistentIdentifier(scope: scope, key: .row(rowID)))
                if let model = registered[RowKey(entity: entity, rowID: rowID)] as? any PersistentModel {
                    detach(deletedRowOf: model)
                }
            }
        }
        var nullified: [RowKey] = []
        for (name, keys) in outcome.nullified {
            guard let entity = container.schema.entity(named: name) else { continue }
            nullified += keys.map { RowKey(entity: entity, rowID: $0) }
        }
        try refresh(nullified)
        let nullifiedIdentifiers = outcome.nullified.flatMap { name, keys in
            let scope = PersistentIdentifier.Scope(entityName: name, storeIdentifier: store.identifier)
            return keys.map { PersistentIdentifier(scope: scope, key: .row($0)) }
        }
        postDidSave(inserted: [], updated: nullifiedIdentifiers, deleted: identifiers)
    }

    /// The statements of a batch delete; together they return the deleted primary keys. Each
    /// also has a form that only selects those keys, for deletes that follow delete rules.
    ///
    /// Deleting every row reads the keys first (from the key range when it has no gaps) and then
    /// runs a bare `DELETE`, which SQLite performs by truncating the table; a filtered delete
    /// returns its keys with `RETURNING`.
    private func deleteSteps<T: PersistentModel>(
        _ plan: FetchPlan, _ descriptor: FetchDescriptor<T>, includeSubclasses: Bool
    ) throws -> [DeleteStep] {
        let exactly = !includeSubclasses && !plan.entity.directSubentities.isEmpty
        guard plan.filtersInSQL else {
            let rowIDs = try fetch(descriptor).filter { !exactly || type(of: $0) == T.self }.compactMap { $0._$modelKit.rowID }
            return stride(from: 0, to: rowIDs.count, by: 500).flatMap { start in
                let chunk = rowIDs[start..<min(start + 500, rowIDs.count)]
                return RelationshipSQL.batchDelete(of: plan.entity, keys: chunk.count, dialect: plan.dialect).map {
                    DeleteStep(sql: $0, bindings: chunk.map { .integer($0) })
                }
            }
        }
        var condition = plan.condition
        if exactly {
            let ofClass = PredicateTerm(
                "(\(plan.entity.name.quotedIdentifier).\(Schema.Entity.Hierarchy.quotedTypeColumn) = \(plan.entity.name.sqlLiteral))")
            condition = condition.map { PredicateTerm.compose("($0 AND $1)", $0, ofClass) } ?? ofClass
        }
        return RelationshipSQL.batchDelete(of: plan.entity, where: condition?.text, dialect: plan.dialect).map {
            DeleteStep(sql: $0, bindings: condition?.bindings ?? [])
        }
    }
}

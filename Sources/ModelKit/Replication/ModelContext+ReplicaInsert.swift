import Foundation

/// Rows of one entity for ``ModelContext/replicaInsert(_:attaching:)``: their stored values,
/// with no models made.
package struct ReplicaInsert {
    package let entity: Schema.Entity
    /// Each row's values by property index (``Schema/Entity/replicaPropertyCount`` a row, one
    /// row after another). Only the stored columns are read; the others may be anything.
    package var values: [SQLValue]

    package init(entity: Schema.Entity, values: [SQLValue]) {
        self.entity = entity
        self.values = values
    }

    var count: Int { values.count / max(1, entity.metadata.count) }
}

extension Schema.Entity {
    /// How many properties a row of ``ReplicaInsert`` has values for.
    package var replicaPropertyCount: Int { metadata.count }

    /// The indexes of the properties the entity's table stores a column of.
    package var replicaStoredIndexes: [Int] { sql.storedColumns }
}

extension ModelContext {
    /// Inserts rows from their stored values, without a model each, in one transaction of the
    /// container's one store, committed as a save of the same rows is: the history records them
    /// under the context's ``author``, the process's other contexts merge them, other processes
    /// and server instances hear of them, and ``willSave`` and ``didSave`` are posted with their
    /// identifiers. `attachment` runs in the transaction once they are written, with each
    /// insert's keys in order. On PostgreSQL the rows go in multi-row statements, as a save's do.
    ///
    /// What it spares is the model per row (a save's main cost when nothing reads the models):
    /// the caller gets keys, not models. Every value is checked against its property's type, as
    /// an assignment would be.
    /// - Throws: ``ModelKitError/invalidConfiguration(_:reason:)`` for an entity with a unique
    ///   constraint (an insert could meet a stored row, which needs a save's upsert);
    ///   ``ModelKitError/storedValueMismatch(entity:property:expected:found:)`` for a value its
    ///   property cannot hold; what the save or `attachment` throws (the store is then as before).
    package func replicaInsert(_ inserts: [ReplicaInsert], attaching attachment: (StoreSQL, _ keys: [[Int64]]) throws -> Void) throws {
        let link = links[0]
        let store = link.store
        guard store.allowsSave else { throw ModelKitError.saveNotAllowed(store.url) }
        for insert in inserts {
            guard insert.entity.sql.uniqueColumns.isEmpty else {
                throw ModelKitError.invalidConfiguration(insert.entity.name, reason: "rows with unique constraints are inserted by a save, which upserts")
            }
            let width = insert.entity.metadata.count
            for row in 0..<insert.count {
                for index in insert.entity.sql.storedColumns where insert.entity.relationshipsByColumn[index] == nil {
                    _ = try insert.entity.decode(insert.values[row * width + index], at: index)
                }
            }
        }
        NotificationGate.shared.post(name: Self.willSave, object: self)
        let (keys, token) = try run(on: link) {
            try store.commit(in: session(of: link)) { writer in
                if store.dialect.batching.inserts {
                    for (entity, count) in Dictionary(grouping: inserts, by: { ObjectIdentifier($0.entity) }).values.map({ ($0[0].entity, $0.reduce(0) { $0 + $1.count }) }) {
                        try writer.expectInserts(count, of: entity)
                    }
                }
                var keys: [[Int64]] = []
                var inserted: [String: [Int64]] = [:]
                for insert in inserts {
                    let width = insert.entity.metadata.count
                    var own: [Int64] = []
                    own.reserveCapacity(insert.count)
                    for row in 0..<insert.count {
                        let start = row * width
                        own.append(try writer.insert(insert.entity) { insert.values[start + $0] })
                    }
                    inserted[insert.entity.name, default: []] += own
                    keys.append(own)
                }
                _ = try writer.finishInserts()
                try attachment(writer.sqlOfItsOwn(), keys)
                return (StoreChange(inserted: inserted, origin: ObjectIdentifier(store)), keys)
            }
        }
        var identifiers: [PersistentIdentifier] = []
        for (insert, keys) in zip(inserts, keys) {
            let scope = store.identity.scope(for: insert.entity)
            identifiers += keys.map { PersistentIdentifier(scope: scope, key: .row($0)) }
        }
        guard !identifiers.isEmpty else { return }
        postDidSave(inserted: identifiers, updated: [], deleted: [], token: token.map { DefaultHistoryToken(storeIdentifier: store.identifier, value: $0) })
    }
}

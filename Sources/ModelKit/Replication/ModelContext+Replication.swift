import Foundation

/// What `ModelKitSync` needs of a context beyond SwiftData's API: saves that write its own
/// tables in the same transaction, transactions of its own, and models made from stored values.
/// Package access only: apps never see it, and the context's public API does not grow.
extension ModelContext {
    /// Saves, running `attachment` in the save's transaction after the model writes and before
    /// the commit, so that what it writes commits with the models or not at all. The inserted
    /// models take their keys once the save committed; `attachment` reads them from the
    /// ``InsertedRowKeys`` it is given. With nothing to save, `attachment` runs in a write
    /// transaction of its own. The container must have one store.
    /// - Throws: what the save throws, or what `attachment` throws (the store is then as before,
    ///   and so are the models).
    package func save(attaching attachment: (StoreSQL, InsertedRowKeys) throws -> Void) throws {
        guard hasChanges else { return try replicaWrite { try attachment($0, InsertedRowKeys(models: [], keys: [])) } }
        try withoutActuallyEscaping(attachment) { try save(inOneTransaction: true, attaching: $0) }
    }

    /// Runs `body` in a write transaction of the container's one store, with history: what it
    /// writes is not a model change.
    package func replicaWrite<R>(_ body: (StoreSQL) throws -> R) throws -> R {
        let session = session(of: links[0])
        return try run(on: links[0]) {
            try links[0].store.write(in: session) { connection in
                try connection.transaction { try body(StoreSQL(connection: connection)) }
            }
        }
    }

    /// The identifier of the container's one store, as its history tokens name it.
    package func replicaStoreIdentifier() throws -> String {
        links[0].store.identifier
    }

    /// Runs `body` on the context's reader of its one store, outside any write.
    package func replicaRead<R>(_ body: (StoreSQL) throws -> R) throws -> R {
        try run(on: links[0]) { try body(StoreSQL(connection: try reader(of: links[0]).connection)) }
    }

    /// A new, unsaved model of `entity` holding `values` (by property index; the others are
    /// their defaults, or zero, empty or NULL), made as a stored row would be: no initializer of
    /// the app's runs. Insert it to store it. A required to-one must be given its target's key.
    package func makeModel(of entity: Schema.Entity, values: [Int: SQLValue]) throws -> any PersistentModel {
        try unsavedModel(of: entity, values: values)
    }

    /// The model of `entity` stored under `rowKey`, registered or loaded now; nil if none is.
    package func model(of entity: Schema.Entity, rowKey: Int64) throws -> (any PersistentModel)? {
        try model(of: entity, rowID: rowKey)
    }
}

/// The keys a save gives the models it inserts, for what runs in its transaction: the models
/// themselves take them only once the save committed.
package struct InsertedRowKeys {
    private let keys: [ObjectIdentifier: Int64]

    init(models: [any PersistentModel], keys: [Int64]) {
        var byModel: [ObjectIdentifier: Int64] = [:]
        byModel.reserveCapacity(keys.count)
        for (model, key) in zip(models, keys) { byModel[ObjectIdentifier(model)] = key }
        self.keys = byModel
    }

    /// `model`'s row key: the one the save gives it, or the one it has.
    package func key(of model: any PersistentModel) -> Int64? {
        keys[ObjectIdentifier(model)] ?? model._rowKey
    }
}

extension PersistentModel {
    /// The model's primary key in its store; nil until it is saved.
    package var _rowKey: Int64? { _$modelKit.rowID }
}

extension ModelContext {
    /// Up to `limit` models of `entity` (each as its own class, in a hierarchy), in key order,
    /// after `key`: pages that a concurrent insert or delete does not shift.
    package func models(of entity: Schema.Entity, keysAfter key: Int64, limit: Int) throws -> [any PersistentModel] {
        let pk = TableSQL.quotedPrimaryKey
        return try models(
            of: entity,
            sql: SQL(
                text: "\(entity.sql.select) WHERE \(pk) > ? ORDER BY \(pk) LIMIT ?", bindings: [.integer(key), .integer(Int64(limit))]))
    }

    /// The models of `entity` stored under `keys`, loaded in batches; missing rows are left out.
    package func models(of entity: Schema.Entity, keys: [Int64]) throws -> [any PersistentModel] {
        let pk = TableSQL.quotedPrimaryKey
        var models: [any PersistentModel] = []
        var start = keys.startIndex
        while start < keys.endIndex {
            let chunk = keys[start..<min(start + 500, keys.endIndex)]
            start = chunk.endIndex
            models += try self.models(
                of: entity, sql: SQL(text: "\(entity.sql.select) WHERE \(pk) IN (\(SQL.placeholders(chunk.count)))", bindings: chunk.map { .integer($0) }))
        }
        return models
    }
}

/// Values of a property type in their stored form and back, as the store converts them.
package enum ReplicaValues {
    /// `value` as the store keeps a `Value`.
    /// - Throws: ``ModelKitError/unsupportedPropertyType(entity:property:type:)`` for a type the
    ///   store cannot keep.
    package static func encode<Value>(_ value: Value) throws -> SQLValue {
        try SQLValue._encode(value)
    }

    /// The `Value` stored as `value`.
    package static func decode<Value>(_ value: SQLValue, as type: Value.Type) throws -> Value {
        guard let codec = ValueCodec.make(for: Value.self) else {
            throw ModelKitError.unsupportedPropertyType(entity: "?", property: "?", type: String(reflecting: Value.self))
        }
        guard let decoded = try codec.decode(value) as? Value else {
            throw ModelKitError.storedValueMismatch(entity: "?", property: "?", expected: "\(Value.self)", found: "\(value)")
        }
        return decoded
    }
}

extension Schema.Entity {
    /// Each unique constraint's properties, by index (see ``ReplicaProperty/index``).
    package var replicaUniqueConstraints: [[Int]] { sql.uniqueColumns }
}

extension ModelContext {
    /// The stored models whose properties at the given indexes hold the given values, as a
    /// unique constraint compares them: in a class hierarchy, rows of any class of `entity`'s
    /// table, each as its own class.
    package func models(of entity: Schema.Entity, holding values: [(index: Int, value: SQLValue)]) throws -> [any PersistentModel] {
        var root = entity
        while let superentity = root.superentity { root = superentity }
        let condition = values.map { "\(entity.sql.columns[$0.index]) = ?" }.joined(separator: " AND ")
        return try models(of: root, sql: SQL(text: "\(root.sql.select) WHERE \(condition)", bindings: values.map(\.value)))
    }
}

extension ModelContext {
    /// The stored models whose property at `index` holds one of `values`, as
    /// ``models(of:holding:)`` reads them.
    package func models(of entity: Schema.Entity, holdingAny values: some Collection<SQLValue>, at index: Int) throws -> [any PersistentModel] {
        guard !values.isEmpty else { return [] }
        var root = entity
        while let superentity = root.superentity { root = superentity }
        return try models(
            of: root,
            sql: SQL(text: "\(root.sql.select) WHERE \(entity.sql.columns[index]) IN (\(SQL.placeholders(values.count)))", bindings: Array(values)))
    }
}

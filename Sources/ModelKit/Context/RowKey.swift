/// A stored row's identity in a context: its entity and primary key.
struct RowKey: Hashable {
    let entity: ObjectIdentifier
    let rowID: Int64

    /// The key of the row under `rowID` of `entity`: a class hierarchy's entities share its
    /// root's keys, so a row has one key whichever class it is fetched as.
    init(entity: Schema.Entity, rowID: Int64) {
        self.init(entity: entity.rootIdentifier, rowID: rowID)
    }

    init(entity: ObjectIdentifier, rowID: Int64) {
        self.entity = entity
        self.rowID = rowID
    }

    /// The key of a model the context has registered.
    init(_ model: some PersistentModel) {
        self.init(entity: model._$modelKit.entity!, rowID: model._$modelKit.rowID!)
    }
}

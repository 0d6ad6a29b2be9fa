/// An ordered set of models, by identity: a context's inserted, changed or deleted models.
struct PendingModels {
    private var order: [ObjectIdentifier] = []
    private var byID: [ObjectIdentifier: any PersistentModel] = [:]

    var isEmpty: Bool { byID.isEmpty }

    var models: [any PersistentModel] { order.compactMap { byID[$0] } }

    func contains(_ model: some PersistentModel) -> Bool { byID[ObjectIdentifier(model)] != nil }

    mutating func add(_ model: some PersistentModel) {
        let id = ObjectIdentifier(model)
        guard byID.updateValue(model, forKey: id) == nil else { return }
        order.append(id)
    }

    @discardableResult
    mutating func remove(_ model: some PersistentModel) -> Bool {
        let id = ObjectIdentifier(model)
        guard byID.removeValue(forKey: id) != nil else { return false }
        order.removeAll { $0 == id }
        return true
    }

    mutating func removeAll() {
        order.removeAll()
        byID.removeAll()
    }
}

/// A stored row's identity in a context: its entity and primary key.
struct RowKey: Hashable {
    let entity: ObjectIdentifier
    let rowID: Int64

    init(entity: Schema.Entity, rowID: Int64) {
        self.entity = ObjectIdentifier(entity)
        self.rowID = rowID
    }

    /// The key of a model the context has registered.
    init(_ model: some PersistentModel) {
        self.init(entity: model._$modelKit.entity!, rowID: model._$modelKit.rowID!)
    }
}

/// A context as its models see it. Each model holds the handle strongly, and the context clears it
/// when it goes away: one shared object instead of a weak reference (and its side table) per model.
final class ContextHandle {
    unowned(unsafe) var context: ModelContext?
}

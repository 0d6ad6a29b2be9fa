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
    let entityName: String
    let rowID: Int64

    init(entityName: String, rowID: Int64) {
        self.entityName = entityName
        self.rowID = rowID
    }

    init<T: PersistentModel>(_ model: T) {
        self.init(entityName: T.entityName, rowID: model._$modelKit.rowID!)
    }
}

/// A registered model, held weakly.
struct WeakModel {
    weak var model: (any PersistentModel)?

    init(_ model: any PersistentModel) { self.model = model }
}

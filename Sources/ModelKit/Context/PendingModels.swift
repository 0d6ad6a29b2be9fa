/// An ordered set of models, by identity: a context's inserted, changed or deleted models.
/// Reading ``models`` is free (the array itself); removing is linear, and rare.
struct PendingModels {
    private(set) var models: [any PersistentModel] = []
    /// The models' identities, for membership: 8 bytes a model.
    private var members: Set<ObjectIdentifier> = []

    var isEmpty: Bool { models.isEmpty }

    func contains(_ model: some PersistentModel) -> Bool {
        members.contains(ObjectIdentifier(model))
    }

    mutating func add(_ model: some PersistentModel) {
        guard members.insert(ObjectIdentifier(model)).inserted else { return }
        models.append(model)
    }

    @discardableResult
    mutating func remove(_ model: some PersistentModel) -> Bool {
        guard members.remove(ObjectIdentifier(model)) != nil, let position = models.firstIndex(where: { $0 === model }) else { return false }
        models.remove(at: position)
        return true
    }

    /// Removes `removed`, in one pass.
    mutating func remove(_ removed: [any PersistentModel]) {
        guard !removed.isEmpty else { return }
        for model in removed { members.remove(ObjectIdentifier(model)) }
        models.removeAll { !members.contains(ObjectIdentifier($0)) }
    }

    mutating func removeAll() {
        models.removeAll()
        members.removeAll()
    }
}

/// A stored row's identity in a context: its entity and primary key.
struct RowKey: Hashable {
    let entity: ObjectIdentifier
    let rowID: Int64

    init(entity: Schema.Entity, rowID: Int64) {
        self.init(entity: ObjectIdentifier(entity), rowID: rowID)
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

/// A context as its models see it. Each model holds the handle strongly, and the context clears it
/// when it goes away: one shared object instead of a weak reference (and its side table) per model.
/// The handle keeps the container, so that models can still load their relationships afterwards.
final class ContextHandle {
    unowned(unsafe) var context: ModelContext?
    let container: ModelContainer

    init(container: ModelContainer) {
        self.container = container
    }
}

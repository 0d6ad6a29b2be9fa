/// An ordered set of models, by identity: a context's inserted, changed or deleted models.
///
/// Adding and removing cost the same whatever the size: a removed model stays in the array, marked
/// stale, until stale models are half of it, and then they all go in one pass. So deleting many
/// unsaved models one by one is linear, not quadratic. Reading ``models`` is free unless some are
/// stale.
struct PendingModels {
    /// The models in the order they were added, with the stale ones still among them.
    private var slots: [any PersistentModel] = []
    /// The models' identities, for membership: one address a model, in a table kept under three
    /// quarters full.
    private var members = IdentitySet()
    /// The identities of the models in `slots` that were removed.
    private var stale = IdentitySet()
    /// How many of the models are of each type, for ``containsModel(of:)``: pending models come
    /// in a few types, so a list is enough.
    private var typeCounts: [(type: any PersistentModel.Type, count: Int)] = []

    var models: [any PersistentModel] {
        stale.isEmpty ? slots : slots.filter { !stale.contains(ObjectIdentifier($0)) }
    }

    var isEmpty: Bool { members.isEmpty }

    func contains(_ model: some PersistentModel) -> Bool {
        members.contains(ObjectIdentifier(model))
    }

    /// Whether a model of type `T` is among the models: a look at the few types pending, however
    /// many models of other types are.
    func containsModel<T: PersistentModel>(of type: T.Type) -> Bool {
        count(of: T.self) > 0
    }

    /// The types of the models, each once.
    var types: some Sequence<any PersistentModel.Type> {
        typeCounts.lazy.filter { $0.count > 0 }.map(\.type)
    }

    /// How many of the models are of type `T` (a subclass included).
    func count<T: PersistentModel>(of type: T.Type) -> Int {
        typeCounts.reduce(0) { $1.type is T.Type ? $0 + $1.count : $0 }
    }

    mutating func add(_ model: some PersistentModel) {
        let id = ObjectIdentifier(model)
        // A model removed and added again goes to the end, as a new one would.
        if stale.contains(id) { compact() }
        guard members.insert(id) else { return }
        slots.append(model)
        count(type(of: model), by: 1)
    }

    @discardableResult
    mutating func remove(_ model: some PersistentModel) -> Bool {
        let id = ObjectIdentifier(model)
        guard members.remove(id) else { return false }
        stale.insert(id)
        count(type(of: model), by: -1)
        if stale.count * 2 > slots.count { compact() }
        return true
    }

    /// Removes `removed`, in one pass.
    mutating func remove(_ removed: [any PersistentModel]) {
        guard !removed.isEmpty else { return }
        for model in removed where members.remove(ObjectIdentifier(model)) {
            stale.insert(ObjectIdentifier(model))
            count(type(of: model), by: -1)
        }
        compact()
    }

    mutating func removeAll() {
        slots.removeAll()
        members.removeAll()
        stale.removeAll()
        typeCounts.removeAll()
    }

    private mutating func count(_ type: any PersistentModel.Type, by change: Int) {
        let id = ObjectIdentifier(type)
        if let index = typeCounts.firstIndex(where: { ObjectIdentifier($0.type) == id }) {
            typeCounts[index].count += change
        } else {
            typeCounts.append((type, change))
        }
    }

    /// Drops the stale models from the array.
    private mutating func compact() {
        guard !stale.isEmpty else { return }
        slots.removeAll { stale.contains(ObjectIdentifier($0)) }
        stale.removeAll()
    }
}

/// An actor that owns a ``ModelContext`` of its own. Apply ``ModelActor()`` to an actor to
/// conform it.
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
    /// The actor's own context: use it only on the actor.
    var modelContext: ModelContext { get }
}

extension ModelActor {
    /// The model with `identifier` in the actor's context, if it exists and is a `T`.
    public subscript<T: PersistentModel>(identifier: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.mergeChanges()
        if let registered: T = modelContext.registeredModel(for: identifier) { return registered }
        guard identifier.rowID != nil, let entity = modelContext.entity(storing: identifier), entity.type == T.self else { return nil }
        return (try? modelContext.model(of: entity, rowID: identifier.rowID!)) as? T
    }
}

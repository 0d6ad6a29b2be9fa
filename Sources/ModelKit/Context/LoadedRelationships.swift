/// The relationships a context may hold loaded, noted as they load, so that its teardown (see
/// ``ModelContext/unloadRelationships()``) visits only the entities whose relationships may hold
/// a cycle, rather than every model to find out.
///
/// A relationship counts as loaded once any model of the context loaded it, for good: noting
/// costs a set insert per load, and a relationship noted but no longer loaded costs the teardown a
/// walk of its entity's models, which is what every teardown used to pay. A relationship holds
/// models when:
/// - it loaded, lazily or by a prefetch (``noteLoad(of:)``);
/// - its model was inserted: a model the program made holds what it was given, and a model
///   another context loaded holds what that context loaded (``noteInsert(of:)``);
/// - it is a required to-one, which loads with its model.
struct LoadedRelationships {
    private var loaded: Set<ObjectIdentifier> = []
    /// The class hierarchies (by their root's identifier) of the models the context inserted.
    private var insertedHierarchies: [ObjectIdentifier] = []

    mutating func noteLoad(of relationship: RelationshipInfo) {
        loaded.insert(ObjectIdentifier(relationship))
    }

    mutating func noteInsert(of entity: Schema.Entity) {
        // Inserts come in runs of one type: the last one is looked at first.
        guard insertedHierarchies.last != entity.rootIdentifier, !insertedHierarchies.contains(entity.rootIdentifier) else { return }
        insertedHierarchies.append(entity.rootIdentifier)
    }

    /// Whether a model of `entity` may hold `relationship` loaded.
    func mayHold(_ relationship: RelationshipInfo, of entity: Schema.Entity) -> Bool {
        if case .toOne(_, isOptional: false) = relationship.shape { return true }
        return loaded.contains(ObjectIdentifier(relationship)) || insertedHierarchies.contains(entity.rootIdentifier)
    }
}

/// The relationships a context's models may hold loaded, noted as they are written, so that its
/// teardown (see ``ModelContext/unloadRelationships()``) visits only the entities whose
/// relationships may hold a cycle, rather than every model to find out.
///
/// A relationship counts once any model of the context held it, for good: noting costs a short
/// search per write, and a relationship noted but no longer held costs the teardown a walk of its
/// entity's models, which is what every teardown used to pay. A relationship holds models when:
/// - something wrote it: a load or a prefetch, a setter, the upkeep of an inverse, an undo, a
///   merge (``noteWrite(at:of:)``, which each write of a relationship of a model in the context
///   calls, unless the model is inserted);
/// - its model was inserted: a model the program made holds what it was given, and a model
///   another context loaded holds what that context loaded (``noteInsert(of:)``);
/// - it is a required to-one, which loads with its model.
///
/// A relationship is known by its class hierarchy and its column: an inherited relationship is a
/// separate ``RelationshipInfo`` in each subclass's entity, and the one an inverse names is the
/// base class's. (Sibling subclasses number their own properties from the same column, so theirs
/// can share a key: that costs a walk, never a cycle left.)
struct LoadedRelationships {
    private struct Key: Equatable {
        let hierarchy: ObjectIdentifier
        let column: Int
    }

    /// Few (a context writes the relationships of a handful of entities), so searched in a line:
    /// hashing a key cost more than the search.
    private var written: [Key] = []
    /// The class hierarchies (by their root's identifier) of the models the context inserted.
    private var insertedHierarchies: [ObjectIdentifier] = []
    /// The entity of the last insert: inserts come in runs of one type.
    private var lastInserted: ObjectIdentifier?

    mutating func noteWrite(at column: Int, of entity: Schema.Entity) {
        let key = Key(hierarchy: entity.rootIdentifier, column: column)
        if !written.contains(key) { written.append(key) }
    }

    mutating func noteInsert(of entity: Schema.Entity) {
        guard ObjectIdentifier(entity) != lastInserted else { return }
        lastInserted = ObjectIdentifier(entity)
        if !insertedHierarchies.contains(entity.rootIdentifier) { insertedHierarchies.append(entity.rootIdentifier) }
    }

    /// Whether a model of `entity` (or of a class in its hierarchy) may hold `relationship`.
    func mayHold(_ relationship: RelationshipInfo, of entity: Schema.Entity) -> Bool {
        if case .toOne(_, isOptional: false) = relationship.shape { return true }
        return insertedHierarchies.contains(entity.rootIdentifier)
            || written.contains(Key(hierarchy: entity.rootIdentifier, column: relationship.column))
    }
}

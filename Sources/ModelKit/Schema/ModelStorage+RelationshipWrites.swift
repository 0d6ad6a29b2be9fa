/// The writes ``Model()`` generates for properties that may be relationships: the setter passes
/// the old and the new value, and the compiler picks the overload from the property's declared
/// type (a model, an optional model, an array of models), so the inverse is kept in step from
/// the typed values, without listing them as `any PersistentModel` first. Not for direct use.
extension ModelStorage {
    /// A value that is not a relationship: written as ``mutate(_:keyPath:column:_:)`` writes it.
    public func mutate<Model: PersistentModel, Value>(
        _ model: Model, keyPath: KeyPath<Model, Value>, column: Int, from old: Value, to new: Value, _ write: () -> Void
    ) {
        mutate(model, keyPath: keyPath, column: column, write)
    }

    /// A required to-one: the model it held lets go of this one, and the new one takes it.
    public func mutate<Model: PersistentModel, Target: PersistentModel>(
        _ model: Model, keyPath: KeyPath<Model, Target>, column: Int, from old: Target, to new: Target, _ write: () -> Void
    ) {
        mutateRelationship(model, keyPath: keyPath, column: column, write) { relationship in
            relationship.maintainInverse(of: model, replacing: old, with: new)
        }
    }

    /// An optional to-one: the model it held lets go of this one, and the new one takes it.
    public func mutate<Model: PersistentModel, Target: PersistentModel>(
        _ model: Model, keyPath: KeyPath<Model, Target?>, column: Int, from old: Target?, to new: Target?, _ write: () -> Void
    ) {
        mutateRelationship(model, keyPath: keyPath, column: column, write) { relationship in
            relationship.maintainInverse(of: model, replacing: old, with: new)
        }
    }

    /// A to-many: the models it gained take this one, and those it lost let go of it.
    public func mutate<Model: PersistentModel, Target: PersistentModel>(
        _ model: Model, keyPath: KeyPath<Model, [Target]>, column: Int, from old: [Target], to new: [Target], _ write: () -> Void
    ) {
        mutateRelationship(model, keyPath: keyPath, column: column, write) { relationship in
            relationship.maintainInverse(of: model, from: old, to: new)
        }
    }

    /// An optional to-many: as a to-many, with nil holding no model.
    public func mutate<Model: PersistentModel, Target: PersistentModel>(
        _ model: Model, keyPath: KeyPath<Model, [Target]?>, column: Int, from old: [Target]?, to new: [Target]?,
        _ write: () -> Void
    ) {
        mutateRelationship(model, keyPath: keyPath, column: column, write) { relationship in
            relationship.maintainInverse(of: model, from: old ?? [], to: new ?? [])
        }
    }

    /// Writes a relationship, then has `maintain` keep its inverse in step, if it has one. A write
    /// by the engine (loading, restoring, merging) is not a change, keeps no inverse, and leaves
    /// the model's relationships free to disagree with their inverses.
    private func mutateRelationship<Model: PersistentModel, Value>(
        _ model: Model, keyPath: KeyPath<Model, Value>, column: Int, _ write: () -> Void,
        maintaining maintain: (RelationshipInfo) -> Void
    ) {
        noteRelationshipWrite(at: column)
        if isLoading { relationshipsMayDisagree = true }
        guard !isLoading, let relationship = relationship(of: Model.self, at: column), relationship.inverse != nil else {
            return mutate(model, keyPath: keyPath, column: column, write)
        }
        if let context, context.undoManager != nil {
            // Undoing the change sets the relationship back, which sets its inverse back too.
            context.registerUndo(of: model, keyPath: keyPath)
            context.undoSuppression += 1
        }
        defer { if let context, context.undoManager != nil { context.undoSuppression -= 1 } }
        guard !hasFault(at: column) else {
            // The setter saw a placeholder: what the relationship held is known once it loads.
            let before = relationship.access.read(model)
            mutate(model, keyPath: keyPath, column: column, write)
            relationship.maintainInverse(of: model, before: before, after: relationship.access.read(model))
            return
        }
        mutate(model, keyPath: keyPath, column: column, write)
        maintain(relationship)
    }

    /// Tells the model's context that the relationship at `column` may hold models now, for its
    /// teardown (see ``LoadedRelationships``). An inserted model's context counts all its
    /// relationships already.
    func noteRelationshipWrite(at column: Int) {
        guard !isInserted, let entity, let context else { return }
        context.loadedRelationships.noteWrite(at: column, of: entity)
    }
}

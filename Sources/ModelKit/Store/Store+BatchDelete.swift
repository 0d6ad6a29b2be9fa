extension Store {
    /// Deletes the rows of `entity` that `steps` select, in one transaction, following delete
    /// rules as ``BatchDeletion`` does, and returns what it deleted and cleared.
    func deleteRows(
        of entity: Schema.Entity, steps: [DeleteStep], followingRules: Bool, in session: StoreSession
    ) throws -> BatchDeletion.Outcome {
        try commit(in: session) { writer in
            let outcome = try writer.deleteRows(of: entity, steps: steps, followingRules: followingRules)
            return (StoreChange(updated: outcome.nullified, deleted: outcome.deleted, origin: ObjectIdentifier(self)), outcome)
        }.result
    }
}

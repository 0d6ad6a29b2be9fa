extension ModelContext: Equatable, CustomDebugStringConvertible {
    /// Contexts are equal when they are the same context, as SwiftData's are.
    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool { lhs === rhs }

    /// The context's container, author and pending changes, for debugging.
    public var debugDescription: String {
        "ModelContext(author: \(author ?? "nil"), inserted: \(insertedModelsArray.count), changed: \(changedModelsArray.count), "
            + "deleted: \(deletedModelsArray.count), autosaveEnabled: \(autosaveEnabled))"
    }
}

/// An actor that owns a ``ModelContext`` of its own, through its ``modelExecutor``, as in
/// SwiftData. Apply ``ModelActor()`` to an actor to conform it, or conform it by hand:
///
/// ```swift
/// actor NotesActor: ModelActor {
///     nonisolated let modelExecutor: any ModelExecutor
///     nonisolated let modelContainer: ModelContainer
///     init(modelContainer: ModelContainer) {
///         modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///         self.modelContainer = modelContainer
///     }
///     func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Note>()) }
/// }
/// ```
///
/// The actor runs on its model executor, which must be a ``SerialModelExecutor`` (such as
/// ``DefaultSerialModelExecutor``).
public protocol ModelActor: Actor {
    /// The executor that runs the actor's jobs and owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
}

extension ModelActor {
    /// The actor's own context: the model executor's. Use it only on the actor.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model executor, on which the actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        // Asked on every hop onto the actor: a class cast first, cheaper than a protocol's.
        if let executor = modelExecutor as? DefaultSerialModelExecutor { return executor.asUnownedSerialExecutor() }
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            preconditionFailure("\(Self.self)'s modelExecutor must be a SerialModelExecutor, such as DefaultSerialModelExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The model with `identifier` in the actor's context, if it exists and is a `T`.
    public subscript<T: PersistentModel>(identifier: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.mergeChanges()
        if let registered: T = modelContext.registeredModel(for: identifier) { return registered }
        guard let entity = modelContext.entity(storing: identifier), entity.type == T.self,
            let rowID = modelContext.rowKey(of: identifier, in: entity)
        else { return nil }
        return (try? modelContext.model(of: entity, rowID: rowID)) as? T
    }
}

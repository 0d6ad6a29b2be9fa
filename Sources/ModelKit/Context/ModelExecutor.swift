import Dispatch

/// An executor that owns a ``ModelContext`` and runs the work that uses it, as in SwiftData.
/// A ``ModelActor`` runs on its model executor.
public protocol ModelExecutor: Executor {
    /// The context the executor's jobs use. Use it only from those jobs, through the actor's
    /// ``ModelActor/modelContext``.
    var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time, so it can be an actor's executor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The model executor `@ModelActor` gives an actor: it runs the actor's jobs one at a time on a
/// dispatch queue of its own.
///
/// Model work blocks on the database (SQLite waiting for a lock, or a round trip to PostgreSQL).
/// On its own queue that wait holds a thread of Dispatch's pool, not one of Swift's cooperative
/// threads, of which there are as many as cores: other tasks keep running.
///
/// ```swift
/// actor NotesActor: ModelActor {
///     nonisolated let modelExecutor: any ModelExecutor
///     nonisolated let modelContainer: ModelContainer
///     init(modelContainer: ModelContainer) {
///         modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///         self.modelContainer = modelContainer
///     }
/// }
/// ```
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // Sendable by confinement: `modelContext` is used only by the jobs this executor runs, which
    // its serial queue runs one at a time; `queue` is thread-safe.

    /// The context the executor's jobs use.
    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "ModelKit.DefaultSerialModelExecutor")
    private static let owner = DispatchSpecificKey<ObjectIdentifier>()

    /// An executor for `modelContext`, which from now on only its jobs should use.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        queue.setSpecific(key: Self.owner, value: ObjectIdentifier(self))
    }

    /// Whether the calling code runs on this executor.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.owner) == ObjectIdentifier(self) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Stops the program unless the current code runs on this executor, for
    /// `assumeIsolated` and `preconditionIsolated`.
    public func checkIsolated() {
        precondition(isCurrent, "expected to run on \(modelContext)'s DefaultSerialModelExecutor")
    }
}

import Synchronization

/// Async work on a container from server code: a request handler's reads and saves, off
/// Swift's cooperative threads.
extension ModelContainer {
    /// Runs `body` with a new context on one of the container's request threads, and suspends
    /// the caller until it is done: the entry point for async code (a request handler, a task)
    /// that reads or saves, on SQLite and PostgreSQL alike.
    ///
    /// ```swift
    /// app.get("notes") { request in
    ///     try await container.perform { context in
    ///         try context.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.title)])).map(\.title)
    ///     }
    /// }
    /// ```
    ///
    /// Database calls block the thread they run on. A context made and used inside an async
    /// function blocks one of Swift's cooperative threads (two on a 2-core machine) for each
    /// call, and every other task of the process waits behind it; `perform` blocks one of the
    /// container's own threads instead, as many as the store keeps connections (a PostgreSQL
    /// configuration's `pooledConnections`, twice the cores for SQLite), so that requests past
    /// that wait in a queue without holding a thread. Models do not leave `body`: return values
    /// (or identifiers). A `@ModelActor` per request does the same, on a queue of its own.
    ///
    /// A task already on one of the container's threads (one that prefers ``requestExecutor``)
    /// runs `body` where it is, in the task, without the hop to another thread and back.
    ///
    /// If the calling task is cancelled before `body` starts, `body` does not run and
    /// `CancellationError` is thrown; once it runs, it runs to the end (a database call cannot
    /// be stopped halfway), and its result is returned.
    /// - Throws: what `body` throws, or `CancellationError`.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (ModelContext) throws -> Result) async throws -> Result {
        if requestThreads.isCurrent {
            try Task.checkCancellation()
            return try body(ModelContext(self))
        }
        let job = PerformJob<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                job.continuation.withLock { $0 = continuation }
                requestThreads.run { [self] in
                    guard job.start() else { return }
                    job.finish(Swift.Result { try body(ModelContext(self)) })
                }
                if Task.isCancelled { job.cancel() }
            }
        } onCancel: {
            job.cancel()
        }
    }
}

extension ModelContainer {
    /// The container's request threads as a task executor: a request handler that prefers it
    /// runs on them from the start, so its ``perform(_:)`` calls run where it is instead of
    /// handing the work to a thread and waiting to be resumed.
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(container.requestExecutor) {
    ///     try await handle(request)  // each `container.perform` in it runs without a hop
    /// }
    /// ```
    ///
    /// The hop is two thread wake-ups and two sleeps a `perform`, about a third of a PostgreSQL
    /// write's client CPU (see the Benchmarks article). What it costs:
    /// - The handler's other nonisolated work runs on the container's threads too, as many as
    ///   the store keeps connections (a PostgreSQL configuration's `pooledConnections`, twice the
    ///   cores for SQLite), after the database work queued before it. A handler that computes
    ///   for long keeps a thread from other requests' database work, as a `perform` body does.
    /// - A `perform` body must not block until another task on the executor does something: once
    ///   every thread is blocked so, nothing runs that task.
    /// - The preference does not move actor-isolated code: from the main actor, each `perform`
    ///   still hops.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var requestExecutor: any TaskExecutor { requestThreads }

    /// How many `perform` calls wait for a request thread: for tests that need one queued.
    package var queuedRequests: Int { requestThreads.queued }
}

/// One `perform` call: its continuation, resumed once, by the work or by a cancellation that
/// came before the work started.
private final class PerformJob<Result: Sendable>: Sendable {
    let continuation = Mutex<CheckedContinuation<Result, any Error>?>(nil)
    private let phase = Mutex(Phase.waiting)

    private enum Phase { case waiting, running, cancelled }

    /// Whether the work may start: not if it was cancelled while it waited.
    func start() -> Bool {
        phase.withLock { phase in
            guard phase == .waiting else { return false }
            phase = .running
            return true
        }
    }

    func finish(_ result: Swift.Result<Result, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }

    /// Resumes with `CancellationError` if the work has not started; it then never will.
    /// Called again once the continuation is set, for a cancellation that came before it.
    func cancel() {
        let cancelled = phase.withLock { phase in
            if phase == .waiting { phase = .cancelled }
            return phase == .cancelled
        }
        if cancelled { continuation.withLock { $0.take() }?.resume(throwing: CancellationError()) }
    }
}

import Foundation
import ModelKit
import Synchronization

/// How the engine's concurrent requests run.
enum EngineMode: String {
    /// Tasks of a `TaskGroup`, each request a new `ModelContext` used in the task.
    case tasks
    /// Tasks of a `TaskGroup`, each request a new `@ModelActor`, whose jobs run on its own
    /// executor, off Swift's cooperative threads.
    case actors
    /// OS threads, each request a new `ModelContext`.
    case threads
    /// Tasks of a `TaskGroup`, each request `container.perform { context in … }`: the
    /// container's own threads, the caller suspended meanwhile.
    case perform
    /// As `perform`, each task preferring the container's `requestExecutor`: `perform` runs
    /// where the task is, without a hop.
    case executor
}

/// One request, on a context of its own.
func handle(_ request: Request, in context: ModelContext) throws {
    switch request {
    case .write(let key):
        context.insert(LoadItem(key: key, name: "item \(key)", value: Double(key)))
        try context.save()
    case .read(let key):
        guard try item(key, in: context) != nil else { throw LoadError("no row with key \(key)") }
    case .update(let key):
        guard let item = try item(key, in: context) else { throw LoadError("no row with key \(key)") }
        item.value += 1
        try context.save()
    }
}

private func item(_ key: Int, in context: ModelContext) throws -> LoadItem? {
    var descriptor = FetchDescriptor<LoadItem>(predicate: #Predicate { $0.key == key })
    descriptor.fetchLimit = 1
    return try context.fetch(descriptor).first
}

/// A request's own actor, as a server handler would make one.
@ModelActor
actor RequestActor {
    func serve(_ request: Request) throws {
        try handle(request, in: modelContext)
    }
}

/// Runs `concurrency` request loops against `container` from `start` until `end`; returns the
/// requests done.
func runEngine(_ container: ModelContainer, mode: EngineMode, workload: Workload, rows: Int, concurrency: Int, process: Int, run: Int, from start: Date, until end: Date) async throws -> Int {
    let done = Counter()
    @Sendable func source(_ loop: Int) -> RequestSource { RequestSource(workload: workload, rows: rows, stream: process * 1000 + loop, run: run) }
    try await Task.sleep(for: .seconds(max(0, start.timeIntervalSinceNow)))
    switch mode {
    case .tasks, .actors, .perform, .executor:
        @Sendable func serve(_ loop: Int) async throws {
            var requests = source(loop)
            while Date() < end {
                let request = requests.next()
                switch mode {
                case .tasks: try handle(request, in: ModelContext(container))
                case .perform, .executor: try await container.perform { context in try handle(request, in: context) }
                default: try await RequestActor(modelContainer: container).serve(request)
                }
                done.count.add(1, ordering: .relaxed)
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for loop in 0..<concurrency {
                if mode == .executor, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                    group.addTask(executorPreference: container.requestExecutor) { try await serve(loop) }
                } else {
                    group.addTask { try await serve(loop) }
                }
            }
            try await group.waitForAll()
        }
    case .threads:
        try await onThreads(concurrency) { loop in
            var requests = source(loop)
            while Date() < end {
                try handle(requests.next(), in: ModelContext(container))
                done.count.add(1, ordering: .relaxed)
            }
        }
    }
    return done.count.load(ordering: .relaxed)
}

import Foundation
import ModelKit
import Synchronization
import Testing

/// `ModelContainer.requestExecutor`: a task that prefers it runs on the container's request
/// threads, and its `perform` calls run where it is.
@Suite struct RequestExecutorTests {
    private final class Flag: Sendable {
        let value = Atomic(false)
    }

    /// Whether the work runs in a task: `perform`'s hop runs it in a plain job on a request
    /// thread, where there is none; run where the caller is, it runs in the caller's task.
    private static func runsInATask() -> Bool { withUnsafeCurrentTask { $0 != nil } }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test(arguments: StoreKind.withPostgres)
    func aTaskOnTheRequestExecutorPerformsWithoutAHop(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        let (inTask, count) = try await withTaskExecutorPreference(container.requestExecutor) {
            try await container.perform { context in
                context.insert(TodoItem(title: "on the executor"))
                try context.save()
                return (Self.runsInATask(), try context.fetchCount(FetchDescriptor<TodoItem>()))
            }
        }
        #expect(inTask, "perform handed the work to another thread")
        #expect(count == 1)
        // Without the preference, the work goes to a request thread.
        let plainInTask = try await Task.detached { try await container.perform { _ in Self.runsInATask() } }.value
        #expect(!plainInTask)
    }

    /// A task on one container's threads hops to another container's for its work: the first
    /// container's threads hold no connection of the second's store.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func aTaskOnOneContainersExecutorHopsToAnothersThreads() async throws {
        let first = try inMemoryContainer(for: TodoItem.self)
        let second = try inMemoryContainer(for: TodoItem.self)
        let (onFirst, onSecond) = try await withTaskExecutorPreference(first.requestExecutor) {
            (try await first.perform { _ in Self.runsInATask() }, try await second.perform { _ in Self.runsInATask() })
        }
        #expect(onFirst)
        #expect(!onSecond)
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func aCancelledTaskOnTheRequestExecutorDoesNotRunItsWork() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let ran = Flag()
        let task = Task(executorPreference: container.requestExecutor) {
            withUnsafeCurrentTask { $0?.cancel() }
            try await container.perform { _ in ran.value.store(true, ordering: .relaxed) }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        let didRun = ran.value.load(ordering: .relaxed)
        #expect(!didRun)
    }

    /// More tasks than the container has threads: the rest wait in the queue, none is lost, and
    /// every save lands.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test(arguments: StoreKind.withPostgres)
    func moreTasksThanThreadsOnTheRequestExecutorAllSave(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        let tasks = 64
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<tasks {
                let title = "item \(index)"
                group.addTask(executorPreference: container.requestExecutor) {
                    try await container.perform { context in
                        #expect(Self.runsInATask(), "perform handed the work to another thread")
                        context.insert(TodoItem(title: title))
                        try context.save()
                    }
                    // A suspension between two calls gives the thread to another task.
                    await Task.yield()
                    try await container.perform { context in
                        let item = try context.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == title }))
                        #expect(item.count == 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await container.perform { try $0.fetchCount(FetchDescriptor<TodoItem>()) } == tasks)
    }
}

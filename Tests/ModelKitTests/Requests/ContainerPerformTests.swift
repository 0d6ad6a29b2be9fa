import Foundation
import ModelKit
import Synchronization
import Testing

/// What the cancellation test's requests saw.
private final class Counts: Sendable {
    let holding = Atomic(0)
    let ran = Atomic(false)
}

/// `ModelContainer.perform(_:)`: async request work on the container's own threads.
@Suite struct ContainerPerformTests {
    @Test(arguments: StoreKind.withPostgres)
    func performRunsWithAContextThatSavesAndReturnsItsResult(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        let saved = try await container.perform { context in
            context.insert(TodoItem(title: "from a request"))
            try context.save()
            return context.insertedModelsArray.isEmpty
        }
        #expect(saved)
        let titles = try await container.perform { context in try context.fetch(FetchDescriptor<TodoItem>()).map(\.title) }
        #expect(titles == ["from a request"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func manyConcurrentRequestsAllComplete(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    try await container.perform { context in
                        context.insert(TodoItem(title: "item \(index)"))
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await container.perform { try $0.fetchCount(FetchDescriptor<TodoItem>()) } == 64)
    }

    @Test func aRequestCancelledBeforeItStartsDoesNotRunAndThrowsCancellation() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        // Every request thread is held (the pool is bounded), so the next request waits in the queue.
        let release = DispatchSemaphore(value: 0)
        let counts = Counts()
        var holders: [Task<Void, any Error>] = []
        for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
            holders.append(Task { try await container.perform { _ in counts.holding.add(1, ordering: .relaxed); release.wait() } })
        }
        while counts.holding.load(ordering: .relaxed) < 2 * ProcessInfo.processInfo.activeProcessorCount { try await Task.sleep(for: .milliseconds(5)) }
        let waiting = Task { try await container.perform { _ in counts.ran.store(true, ordering: .relaxed) } }
        while container.queuedRequests == 0 { await Task.yield() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        for _ in holders { release.signal() }
        for holder in holders { try await holder.value }
        let didRun = counts.ran.load(ordering: .relaxed)
        #expect(!didRun)
        // The threads are free again.
        #expect(try await container.perform { _ in 42 } == 42)
    }
}

import Foundation
import Testing

@testable import ModelKit

/// The threads `perform` runs on end with their container.
@Suite struct RequestThreadsTests {
    @Test func aReleasedContainersRequestThreadsEnd() async throws {
        weak var threads: RequestThreads?
        do {
            let container = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            threads = container.requestThreads
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await container.perform { try $0.fetchCount(FetchDescriptor<TodoItem>()) } }
                }
                for try await count in group { #expect(count == 0) }
            }
        }
        // Each running thread holds the pool: it is freed when the last one has ended.
        let deadline = ContinuousClock.now + .seconds(60)
        while threads != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(threads == nil, "the container's request threads still run after it was released")
    }
}

import Foundation
import Synchronization
import Testing

@testable import ModelKit

/// Contexts of one process take turns at one writer; every connection gets the store's settings.
@Suite struct StoreAccessTests {
    @Test func eightContextsSavingConcurrentlyWhileAnotherReadsLoseNothing() async throws {
        let store = try TemporaryStore()
        let container = try store.container(for: TodoItem.self)
        let errors = ErrorList()
        let writing = WritersLeft(8)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let context = ModelContext(container)
                    for save in 0..<150 {
                        let item = TodoItem(title: "\(writer)-\(save)")
                        item.priority = writer
                        context.insert(item)
                        do { try context.save() } catch { errors.append("\(error)") }
                    }
                    writing.count.subtract(1, ordering: .releasing)
                }
            }
            group.addTask {
                let context = ModelContext(container)
                var last = 0
                while writing.count.load(ordering: .acquiring) > 0 {
                    do {
                        let count = try context.fetchCount(FetchDescriptor<TodoItem>())
                        if count < last { errors.append("count went back from \(last) to \(count)") }
                        last = count
                    } catch {
                        errors.append("\(error)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(errors.all == [])
        let titles = Set(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title))
        #expect(titles.count == 1200)
        #expect(titles.contains("7-149"))
    }

    @Test func everyConnectionRunsWithSynchronousNormalAndWAL() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: TodoItem.self)
        let contexts = (0..<3).map { _ in ModelContext(container) }
        for context in contexts {
            let connection = try context.reader(of: context.links[0]).connection
            #expect(try connection.statement("PRAGMA synchronous").rows() == [[.integer(1)]])
            #expect(try connection.statement("PRAGMA journal_mode").rows() == [[.text("wal")]])
        }
    }

    @Test func containersOnOneFileShareTheProcesssWriter() throws {
        let store = try TemporaryStore()
        let first = try store.container(for: TodoItem.self)
        let second = try store.container(for: TodoItem.self)
        #expect(first.stores[0].access === second.stores[0].access)
        let held = TodoItem(title: "shared")
        let a = ModelContext(first)
        a.insert(held)
        try a.save()
        let b = ModelContext(second)
        try #require(try b.fetch(FetchDescriptor<TodoItem>()).first).priority = 8
        try b.save()
        _ = try a.fetchCount(FetchDescriptor<TodoItem>())
        #expect(held.priority == 8)
    }
}

/// Errors collected from several tasks.
final class ErrorList: Sendable {
    private let list = Mutex<[String]>([])
    var all: [String] { list.withLock { $0 } }
    func append(_ error: String) { list.withLock { $0.append(error) } }
}

/// How many writer tasks are still running.
final class WritersLeft: Sendable {
    let count: Atomic<Int>
    init(_ count: Int) { self.count = Atomic(count) }
}

import Foundation
import Testing

@testable import ModelKit

/// Saves post `willSave` and `didSave` through ``NotificationGate``, which lets one thread post
/// at a time: observers still see every notification once, may save from inside one, and may
/// wait for another thread's save without deadlocking it.
@Suite struct SaveNotificationGateTests {
    /// Counts the notifications of one container's contexts.
    private final class Tally: @unchecked Sendable {
        private let counts = PosixMutex((willSave: 0, didSave: 0, inserted: Set<PersistentIdentifier>()))
        private var observers: [any NSObjectProtocol] = []

        init(_ container: ModelContainer) {
            let center = NotificationCenter.default
            observers.append(
                center.addObserver(forName: ModelContext.willSave, object: nil, queue: nil) { [counts] note in
                    guard (note.object as? ModelContext)?.container === container else { return }
                    counts.withLock { $0.willSave += 1 }
                })
            observers.append(
                center.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { [counts] note in
                    guard (note.object as? ModelContext)?.container === container else { return }
                    let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
                    counts.withLock {
                        $0.didSave += 1
                        $0.inserted.formUnion(inserted)
                    }
                })
        }

        var current: (willSave: Int, didSave: Int, inserted: Set<PersistentIdentifier>) { counts.withLock { $0 } }

        deinit { for observer in observers { NotificationCenter.default.removeObserver(observer) } }
    }

    @Test func concurrentSavesPostEachNotificationOnce() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let tally = Tally(container)
        let threads = 8
        let saves = 40
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for save in 0..<saves {
                let context = ModelContext(container)
                context.insert(TodoItem(title: "\(thread).\(save)"))
                try! context.save()
            }
        }
        let counts = tally.current
        #expect(counts.willSave == threads * saves)
        #expect(counts.didSave == threads * saves)
        #expect(counts.inserted.count == threads * saves)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == threads * saves)
    }

    @Test func anObserverSavesAnotherContextFromInsideDidSave() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let first = ModelContext(container)
        nonisolated(unsafe) let second = ModelContext(container)
        nonisolated(unsafe) var order: [String] = []
        let center = NotificationCenter.default
        let outer = center.addObserver(forName: ModelContext.didSave, object: first, queue: nil) { _ in
            order.append("first saved")
            second.insert(TodoItem(title: "from the observer"))
            try! second.save()
            order.append("observer returns")
        }
        let inner = center.addObserver(forName: ModelContext.didSave, object: second, queue: nil) { _ in order.append("second saved") }
        defer {
            center.removeObserver(outer)
            center.removeObserver(inner)
        }
        first.insert(TodoItem(title: "first"))
        try first.save()
        #expect(order == ["first saved", "second saved", "observer returns"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 2)
    }

    /// A post from inside an observer of a post that went through the gate goes through it too
    /// (the gate is recursive) rather than waiting out its patience for its own thread. A post
    /// that waited out its patience because another test's thread held the gate proves nothing,
    /// so the check repeats until outer posts went through.
    @Test func aPostFromAnObserverGoesThroughTheGateItsThreadHolds() {
        let outerName = Notification.Name("SaveNotificationGateTests.outer")
        let innerName = Notification.Name("SaveNotificationGateTests.inner")
        nonisolated(unsafe) var innerEntered: [Bool] = []
        let observer = NotificationCenter.default.addObserver(forName: outerName, object: nil, queue: nil) { _ in
            innerEntered.append(NotificationGate.shared.post(name: innerName, object: nil))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        var checked = 0
        for _ in 0..<100 where checked < 10 {
            let outerEntered = NotificationGate.shared.post(name: outerName, object: nil)
            if outerEntered {
                checked += 1
                #expect(innerEntered.last == true, "the nested post did not go through the gate its thread held")
            }
        }
        #expect(checked == 10)
    }

    /// An observer on one thread waits for a save on another: the other thread's posts cannot
    /// wait for the gate that the observer's thread holds, or neither would finish.
    @Test func anObserverWaitingForAnotherThreadsSaveDoesNotDeadlockIt() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let waiting = ModelContext(container)
        let otherSaved = DispatchSemaphore(value: 0)
        let observerInside = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var otherFinished: DispatchTimeoutResult = .timedOut
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: waiting, queue: nil) { _ in
            observerInside.signal()
            otherFinished = otherSaved.wait(timeout: .now() + 30)
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let other = Thread {
            observerInside.wait()
            let context = ModelContext(container)
            context.insert(TodoItem(title: "other"))
            try! context.save()
            otherSaved.signal()
        }
        other.start()
        waiting.insert(TodoItem(title: "waiting"))
        try waiting.save()
        #expect(otherFinished == .success, "the other thread's save waited for the observer that waited for it")
    }
}

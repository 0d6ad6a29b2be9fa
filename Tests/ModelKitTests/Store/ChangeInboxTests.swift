import Foundation
import Synchronization
import Testing

@testable import ModelKit

/// What a context reads of other contexts' commits, through its inbox in the store's shared log:
/// every change others made since it last read, in order, never its own; bounded however long a
/// context does not read, and then one change of unknown rows.
@Suite struct ChangeInboxTests {
    private func change(inserting keys: Range<Int64>) -> StoreChange {
        StoreChange(inserted: ["Item": Array(keys)])
    }

    @Test func anInboxReadsOthersChangesInOrderOnceAndNeverItsOwn() {
        let log = ChangeLog()
        let mine = ChangeInbox(log: log)
        let other = ChangeInbox(log: log)
        _ = log.append(change(inserting: 0..<1), from: other)
        _ = log.append(change(inserting: 1..<2), from: mine)
        _ = log.append(change(inserting: 2..<3), from: nil)
        #expect(mine.hasChanges)
        #expect(mine.drain().map { $0.inserted["Item"] } == [[0], [2]])
        #expect(!mine.hasChanges && mine.drain().isEmpty)
        #expect(other.drain().map { $0.inserted["Item"] } == [[1], [2]])
        let late = ChangeInbox(log: log)
        #expect(!late.hasChanges, "an inbox reads what is committed after it is made")
    }

    @Test func aContextsOwnCommitLeavesNothingToReadWhenNothingCameBetween() {
        let log = ChangeLog()
        let mine = ChangeInbox(log: log)
        _ = log.append(change(inserting: 0..<1), from: mine)
        #expect(!mine.hasChanges)
        _ = log.append(change(inserting: 1..<2), from: nil)
        _ = log.append(change(inserting: 2..<3), from: mine)
        #expect(mine.hasChanges, "another change came between")
        #expect(mine.drain().map { $0.inserted["Item"] } == [[1]])
    }

    @Test func pastTheKeyLimitALaggingInboxReadsOneChangeOfUnknownRowsAndAnInboxThatKeptUpReadsEveryChange() {
        let log = ChangeLog(keyLimit: 10)
        let lagging = ChangeInbox(log: log)
        let reading = ChangeInbox(log: log)
        _ = log.append(change(inserting: 0..<6), from: nil)
        #expect(reading.drain().map(\.keyCount) == [6])
        _ = log.append(change(inserting: 6..<11), from: nil)
        #expect(log.count == 1, "the oldest entry went, to keep the log within half its limit")
        #expect(reading.drain().map(\.keyCount) == [5])
        let collapsed = lagging.drain()
        #expect(collapsed.count == 1 && collapsed[0].isExternal)
        _ = log.append(change(inserting: 0..<3), from: nil)
        #expect(lagging.drain().map(\.keyCount) == [3], "it reads normally again")
    }

    /// An inbox that never reads, and changes that name no keys (another instance's "anything
    /// may have changed"): the log still keeps at most its limits.
    @Test func anInboxThatNeverReadsKeepsTheLogWithinItsLimitsWhateverTheChanges() {
        let log = ChangeLog(keyLimit: 1_000, entryLimit: 100)
        let idle = ChangeInbox(log: log)
        for index in 0..<10_000 {
            _ = log.append(index.isMultiple(of: 2) ? .external : change(inserting: Int64(index)..<Int64(index + 3)), from: nil)
            #expect(log.count <= 100)
        }
        #expect(log.count >= 50, "it keeps the newest half")
        let drained = idle.drain()
        #expect(drained.count == 1 && drained[0].isExternal)
    }

    /// Two threads draining one inbox (an observer's, drained where commits happen) while a
    /// third appends: every change is taken once.
    @Test func twoThreadsDrainingOneInboxTakeEachChangeOnce() {
        let log = ChangeLog(keyLimit: 1_000_000, entryLimit: 1_000_000)
        let inbox = ChangeInbox(log: log)
        let total = 50_000
        let taken = Mutex([Int64]())
        let done = DispatchGroup()
        func onThread(_ body: @escaping @Sendable () -> Void) {
            done.enter()
            Thread.detachNewThread {
                body()
                done.leave()
            }
        }
        onThread {
            for key in 0..<total { _ = log.append(StoreChange(inserted: ["Item": [Int64(key)]]), from: nil) }
        }
        for _ in 0..<2 {
            onThread {
                var mine: [Int64] = []
                while log.latest.load(ordering: .acquiring) < UInt64(total) || inbox.hasChanges {
                    mine += inbox.drain().flatMap { $0.inserted["Item"] ?? [] }
                }
                taken.withLock { $0 += mine }
            }
        }
        done.wait()
        #expect(taken.withLock { $0.sorted() } == (0..<Int64(total)).map { $0 })
    }

    @Test func aChangePastTheKeyLimitAloneIsKeptAsOneOfUnknownRows() {
        let log = ChangeLog(keyLimit: 10)
        let inbox = ChangeInbox(log: log)
        _ = log.append(change(inserting: 0..<11), from: nil)
        let drained = inbox.drain()
        #expect(drained.count == 1 && drained[0].isExternal && drained[0].keyCount == 0)
    }

    @Test func aChangeOfUnknownRowsTakesInEveryChangeAfterIt() {
        let log = ChangeLog()
        let inbox = ChangeInbox(log: log)
        _ = log.append(change(inserting: 0..<2), from: nil)
        _ = log.append(.external, from: nil)
        _ = log.append(change(inserting: 2..<4), from: nil)
        let drained = inbox.drain()
        #expect(drained.count == 1 && drained[0].isExternal)
    }

    @Test func trimmingLetsGoOfWhatEveryInboxReadAndNothingElse() {
        let log = ChangeLog()
        let inbox = ChangeInbox(log: log)
        for key in Int64(0)..<5 { _ = log.append(change(inserting: key..<(key + 1)), from: nil) }
        log.trim(readUpTo: 3)
        #expect(log.count == 2)
        #expect(inbox.drain().count == 1 && inbox.drain().isEmpty, "lost entries read as one change of unknown rows")
        log.trim(readUpTo: log.latest.load(ordering: .relaxed))
        #expect(log.count == 0)
        _ = log.append(change(inserting: 9..<10), from: nil)
        #expect(inbox.drain().map { $0.inserted["Item"] } == [[9]])
    }

    /// Random commits, reads and trims by several inboxes, checked against what each must read:
    /// every change of the others since it last read, in order, or one change of unknown rows
    /// when the log let go of one of them. Replay a run with `CHANGE_LOG_SEED`.
    @Test func randomCommitsReadsAndTrimsGiveEveryInboxWhatOthersCommittedInOrder() {
        let seed = ProcessInfo.processInfo.environment["CHANGE_LOG_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("ChangeInboxTests seed \(seed) (CHANGE_LOG_SEED)")
        let random = SeededRandom(seed: seed)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let log = ChangeLog(keyLimit: 40)
        let inboxes = (0..<4).map { _ in ChangeInbox(log: log) }
        var lost = Array(repeating: false, count: 4)
        var appended: [(key: Int64, source: Int?)] = []
        var read = Array(repeating: 0, count: 4)  // how many of `appended` each inbox read up to
        for step in 0..<5_000 {
            switch next(10) {
            case 0..<5:
                let source = next(5) < 4 ? next(4) : nil
                _ = log.append(StoreChange(inserted: ["Item": [Int64(step)]]), from: source.map { inboxes[$0] })
                appended.append((Int64(step), source))
                if let source, read[source] == appended.count - 1 { read[source] = appended.count }
            case 5..<9:
                let reader = next(4)
                let expected = appended[read[reader]...].filter { $0.source != reader }.map(\.key)
                if read[reader] < appended.count - log.count, read[reader] < appended.count { lost[reader] = true }
                read[reader] = appended.count
                let drained = inboxes[reader].drain()
                if lost[reader] {
                    #expect(drained.count == 1 && drained[0].isExternal, "seed \(seed), step \(step)")
                } else {
                    #expect(drained.flatMap { $0.inserted["Item"] ?? [] } == expected, "seed \(seed), step \(step)")
                }
                lost[reader] = false
            default:
                log.trim(readUpTo: inboxes.map { $0.position.load(ordering: .relaxed) }.min()!)
            }
        }
    }

    /// A context that did not read while another saved more keys than the log keeps still sees
    /// the update and the delete of the models it holds on its next read.
    @Test func aContextIdleThroughMoreKeysThanTheLogKeepsSeesEveryChangeOnItsNextRead() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let writer = ModelContext(container)
        writer.insert(TodoItem(title: "kept"))
        writer.insert(TodoItem(title: "gone"))
        try writer.save()
        let idle = ModelContext(container)
        let held = try idle.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(held.map(\.title) == ["gone", "kept"])
        for index in 0...idle.links[0].inbox.log.keyLimit { writer.insert(TodoItem(title: "bulk \(index)")) }
        try writer.save()
        let (gone, kept) = (held[0].persistentModelID, held[1].persistentModelID)
        try #require(writer.model(for: kept) as? TodoItem).priority = 9
        writer.delete(try #require(writer.model(for: gone) as? TodoItem))
        try writer.save()
        idle.processPendingChanges()
        #expect(held[1].priority == 9)
        #expect(held[0].isDeleted)
    }

    /// Contexts that come and go while others save: the log keeps only what a live context has
    /// yet to read, whatever the number of saves.
    @Test func theLogKeepsOnlyWhatALiveContextHasYetToRead() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let access = try #require(container.stores.first).access
        for round in 0..<(ChangeLog.trimInterval * 3) {
            let context = ModelContext(container)
            context.insert(TodoItem(title: "item \(round)"))
            try context.save()
        }
        #expect(access.changes.count <= ChangeLog.trimInterval, "entries every inbox read were let go of")
    }
}

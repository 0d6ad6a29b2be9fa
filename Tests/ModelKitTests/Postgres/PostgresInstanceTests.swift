import Foundation
import ModelKit
import ModelKitPostgres
import Synchronization
import Testing

/// Several server instances on one PostgreSQL database (here, containers connecting under
/// different application names, so that they share nothing in the process): what one saves,
/// the others hear within a second and see; conflicts are caught; nothing is lost.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresInstanceTests {
    typealias Heard = StoreChangeFeedTests.Heard

    @Test func aSaveInOneInstanceReachesTheOthersObserversAndContextsWithinASecond() throws {
        let database = PostgresTestDatabase()
        let first = try database.container(for: TodoItem.self, Trip.self, instance: 1)
        let second = try database.container(for: TodoItem.self, Trip.self, instance: 2)
        let seed = ModelContext(first)
        let item = TodoItem(title: "draft")
        seed.insert(item)
        try seed.save()

        let reader = ModelContext(second)
        let held = try #require(reader.model(for: item.persistentModelID) as? TodoItem)
        let heard = Heard()
        let observation = second.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }

        item.title = "final"
        try seed.save()
        let saved = Date()
        let first_ = try #require(heard.wait().first, "the other instance heard the save")
        #expect(first_.names == ["TodoItem"])
        #expect(first_.at.timeIntervalSince(saved) < 1)
        _ = try reader.fetchCount(FetchDescriptor<Trip>())  // any read merges what was heard
        #expect(held.title == "final")
    }

    /// Announcements go out on the listening connection: one made while it is down waits for
    /// the next one, and the other instance still hears the save.
    @Test func aSaveAnnouncedWhileTheListeningConnectionIsDownReachesTheOtherInstance() throws {
        let database = PostgresTestDatabase()
        let first = try database.container(for: TodoItem.self, Trip.self, instance: 1)
        let second = try database.container(for: TodoItem.self, Trip.self, instance: 2)
        let heardDraft = Heard()
        let draftObservation = second.observeStoreChanges { heardDraft.append($0) }
        let writer = ModelContext(first)
        let item = TodoItem(title: "draft")
        writer.insert(item)
        try writer.save()
        try #require(!heardDraft.wait(timeout: 60).isEmpty, "the first save was heard before the drop")
        draftObservation.cancel()
        let reader = ModelContext(second)
        let held = try #require(reader.model(for: item.persistentModelID) as? TodoItem)
        #expect(held.title == "draft")
        let heard = Heard()
        let observation = second.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }

        try database.dropConnections(instance: 1)
        item.title = "final"
        // The writer's own connection dropped too: a save may fail with `connectionLost`, as
        // documented, and the next one reconnects.
        if (try? writer.save()) == nil { try writer.save() }
        // Long, for a full test run on two cores; alone, the listener is back within a second.
        let calls = heard.wait(timeout: 60)
        #expect(calls.first?.names == ["TodoItem"], "the other instance heard the save")
        _ = try reader.fetchCount(FetchDescriptor<Trip>())  // any read merges what was heard
        #expect(held.title == "final")
    }

    @Test func rapidSavesOfOneInstanceAllReachTheModelsAnotherInstanceHolds() throws {
        let database = PostgresTestDatabase()
        let first = try database.container(for: TodoItem.self, Trip.self, instance: 1)
        let second = try database.container(for: TodoItem.self, Trip.self, instance: 2)
        let writer = ModelContext(first)
        let item = TodoItem(title: "counted")
        writer.insert(item)
        try writer.save()
        let reader = ModelContext(second)
        let held = try #require(reader.model(for: item.persistentModelID) as? TodoItem)

        // A hundred saves in a row: the last one heard leaves the held model at the last value.
        for count in 1...100 {
            item.priority = count
            try writer.save()
        }
        let deadline = Date().addingTimeInterval(60)
        while held.priority != 100, Date() < deadline {
            _ = try reader.fetchCount(FetchDescriptor<Trip>())  // any read merges what was heard
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(held.priority == 100)
    }

    /// Saves made at once share announcements (``AnnouncementPacer``): every row is still
    /// announced, so the models another instance holds all reach their last values.
    @Test func concurrentSavesOfOneInstanceShareAnnouncementsAndEveryRowIsHeard() async throws {
        let database = PostgresTestDatabase()
        let first = try database.container(for: TodoItem.self, Trip.self, instance: 1)
        let second = try database.container(for: TodoItem.self, Trip.self, instance: 2)
        let seed = ModelContext(first)
        let items = (0..<16).map { TodoItem(title: "item \($0)") }
        items.forEach(seed.insert)
        try seed.save()
        let ids = items.map(\.persistentModelID)
        let reader = ModelContext(second)
        let held = try ids.map { try #require(reader.model(for: $0) as? TodoItem) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids {
                group.addTask {
                    try await first.perform { context in
                        let item = try #require(context.model(for: id) as? TodoItem)
                        for count in 1...20 {
                            item.priority = count
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Long, for a full test run on two cores; alone, the rows are heard within milliseconds.
        let deadline = Date().addingTimeInterval(60)
        while held.contains(where: { $0.priority != 20 }), Date() < deadline {
            _ = try reader.fetchCount(FetchDescriptor<Trip>())  // any read merges what was heard
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(held.map(\.priority) == Array(repeating: 20, count: 16))
    }

    @Test func savingARowAnotherInstanceDeletedIsAConflictAndWritesNothing() throws {
        let database = PostgresTestDatabase()
        let first = try database.container(for: TodoItem.self, instance: 1)
        let second = try database.container(for: TodoItem.self, instance: 2)
        let a = ModelContext(first)
        let item = TodoItem(title: "shared")
        a.insert(item)
        try a.save()
        let b = ModelContext(second)
        let other = try #require(b.model(for: item.persistentModelID) as? TodoItem)
        a.delete(item)
        try a.save()
        other.title = "edited after the delete"
        b.insert(TodoItem(title: "also in the failed save"))
        #expect {
            try b.save()
        } throws: { error in
            guard case .saveConflict(entity: "TodoItem", _)? = modelKitError(error) else { return false }
            return true
        }
        #expect(try ModelContext(first).fetchCount(FetchDescriptor<TodoItem>()) == 0)
    }

    @Test func fourInstancesSavingAtOnceLoseNothing() async throws {
        let database = PostgresTestDatabase()
        let containers = try (1...4).map { try database.container(for: TodoItem.self, instance: $0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, container) in containers.enumerated() {
                group.addTask {
                    let context = ModelContext(container)
                    for save in 0..<25 {
                        context.insert(TodoItem(title: "instance \(index) save \(save)"))
                        context.insert(TodoItem(title: "instance \(index) save \(save) bis"))
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let titles = try ModelContext(containers[0]).fetch(FetchDescriptor<TodoItem>()).map(\.title)
        #expect(titles.count == 200)
        #expect(Set(titles).count == 200)
        let history = try ModelContext(containers[1]).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 100, "one transaction per save, whichever instance saved")
        #expect(history.allSatisfy { $0.changes.count == 2 })
        #expect(Set(history.map(\.token)).count == 100)
    }

    /// The transactions after `token`, as Apple's history examples fetch them; all without one.
    static func transactions(after token: DefaultHistoryToken?) -> HistoryDescriptor<DefaultHistoryTransaction> {
        guard let token else { return HistoryDescriptor() }
        return HistoryDescriptor(predicate: #Predicate { $0.token > token })
    }

    @Test func readersFollowingTokensDuringConcurrentSavesMissNothing() throws {
        let database = PostgresTestDatabase()
        let writers = try (1...8).map { try database.container(for: TodoItem.self, instance: $0) }
        let reader = ModelContext(try database.container(for: TodoItem.self, instance: 9))
        let saving = DispatchGroup()
        let failures = Mutex<[any Error]>([])
        // The writers wait for the reader's first read halfway through, and for its second three
        // quarters through, so that it reads while they commit however the threads are scheduled.
        let (afterFirstRead, afterSecondRead) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        // Writers on threads of their own, so the reader reads while they commit.
        for (index, container) in writers.enumerated() {
            saving.enter()
            Thread.detachNewThread {
                defer { saving.leave() }
                do {
                    let context = ModelContext(container)
                    for save in 0..<40 {
                        if save == 20 { afterFirstRead.wait() }
                        if save == 30 { afterSecondRead.wait() }
                        // Statements between a transaction's first write, which fixes its token,
                        // and its commit, more in some than in others: commits overtake each other.
                        for part in 0..<(1 + (save + index) % 5) { context.insert(TodoItem(title: "writer \(index) save \(save) part \(part)")) }
                        try context.save()
                    }
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }
        var seen: [DefaultHistoryToken] = []
        var reads = 0
        while saving.wait(timeout: .now()) == .timedOut {
            seen += try reader.fetchHistory(Self.transactions(after: seen.last)).map(\.token)
            reads += 1
            if reads <= 2 { for _ in writers { (reads == 1 ? afterFirstRead : afterSecondRead).signal() } }
        }
        let deadline = Date().addingTimeInterval(60)
        while seen.count < 320, Date() < deadline {
            seen += try reader.fetchHistory(Self.transactions(after: seen.last)).map(\.token)
        }
        #expect(failures.withLock { $0.isEmpty })
        #expect(reads > 1, "the reader read while the writers saved")
        #expect(seen.count == 320, "every transaction, once")
        #expect(Set(seen).count == seen.count)
    }

    /// While another schema's transaction stays open, both instances read the save made after it
    /// began: a read held back below that transaction would find none.
    @Test func aLongWriteTransactionElsewhereOnTheServerDoesNotHoldBackHistoryReads() throws {
        let database = PostgresTestDatabase()
        let elsewhere = PostgresTestDatabase()
        try elsewhere.execute("CREATE TABLE busy (n int)")
        let context = ModelContext(try database.container(for: TodoItem.self, instance: 1))
        let reader = ModelContext(try database.container(for: TodoItem.self, instance: 2))
        try elsewhere.whileWriting("INSERT INTO busy VALUES (1)") {
            context.insert(TodoItem(title: "saved while another schema's transaction runs"))
            try context.save()
            #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
            #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
        }
    }

    @Test func aHistoryWriterInFlightHoldsBackReadsOfLaterTokensUntilItEnds() throws {
        let database = PostgresTestDatabase()
        let context = ModelContext(try database.container(for: TodoItem.self, instance: 1))
        let reader = ModelContext(try database.container(for: TodoItem.self, instance: 2))
        try database.whileWriting(#"LOCK TABLE "_modelkit_history" IN ROW EXCLUSIVE MODE; SELECT pg_current_xact_id()"#) {
            context.insert(TodoItem(title: "a later token, saved while an earlier one may still commit"))
            try context.save()
            #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        }
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }

    @Test func aTransactionWaitingOnAHistoryWriterDoesNotLetReadsPassTheWriter() throws {
        let database = PostgresTestDatabase()
        let context = ModelContext(try database.container(for: TodoItem.self, instance: 1))
        let reader = ModelContext(try database.container(for: TodoItem.self, instance: 2))
        try database.execute("CREATE TABLE busy (n int); INSERT INTO busy VALUES (1)")
        let waiterDone = DispatchSemaphore(value: 0)
        try database.whileWriting(#"LOCK TABLE "_modelkit_history" IN ROW EXCLUSIVE MODE; UPDATE busy SET n = 2"#) {
            // Another transaction, without the history lock, waits for the writer's row.
            Thread.detachNewThread {
                try? database.execute("UPDATE busy SET n = 3")
                waiterDone.signal()
            }
            let deadline = Date().addingTimeInterval(60)
            var waiting = false
            while !waiting, Date() < deadline {
                waiting = try database.rows("SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted") != [["0"]]
                if !waiting { Thread.sleep(forTimeInterval: 0.01) }
            }
            #expect(waiting)
            context.insert(TodoItem(title: "a later token"))
            try context.save()
            #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).isEmpty)
        }
        waiterDone.wait()
        #expect(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
    }

    @Test func aHistoryWhoseTokensCameFromAnIdentityColumnMovesToTransactionIDsAndKeepsGrowing() throws {
        let database = PostgresTestDatabase()
        do {
            let context = ModelContext(try database.container(for: TodoItem.self, instance: 1))
            context.insert(TodoItem(title: "before"))
            try context.save()
        }
        // The layout of stores made before tokens were transaction ids.
        try database.execute(
            #"ALTER TABLE _modelkit_history ALTER COLUMN "token" DROP DEFAULT, ALTER COLUMN "token" ADD GENERATED BY DEFAULT AS IDENTITY"#)
        try database.execute(#"INSERT INTO _modelkit_history ("timestamp", "bundle", "process", "changes") SELECT "timestamp", "bundle", "process", "changes" FROM _modelkit_history"#)
        let context = ModelContext(try database.container(for: TodoItem.self, instance: 2))
        let old = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.token)
        context.insert(TodoItem(title: "after"))
        try context.save()
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.token)
        #expect(all.count == old.count + 1)
        #expect(all.last! > old.last!)
        #expect(try database.rows("SELECT is_identity FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '_modelkit_history' AND column_name = 'token'") == [["NO"]])
    }
}

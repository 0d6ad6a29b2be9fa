import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ModelKit

/// Commits made outside the process reach observers and contexts here without a read, within a
/// second, and name exactly what they changed when the store's history can say.
@Suite struct StoreChangeFeedTests {
    /// Collects what an observation hears, and when.
    final class Heard: Sendable {
        private let calls = Mutex<[(names: Set<String>, at: Date)]>([])

        func append(_ names: Set<String>) { calls.withLock { $0.append((names, Date())) } }

        /// The calls so far, once there is one or `timeout` has passed.
        func wait(timeout: TimeInterval = 5) -> [(names: Set<String>, at: Date)] {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let seen = calls.withLock { $0 }
                if !seen.isEmpty { return seen }
                usleep(10_000)
            }
            return calls.withLock { $0 }
        }
    }

    /// Another program writes a trip's nights and the history entry a ModelKit save would, in one
    /// transaction.
    private static func setNights(_ nights: Int, ofTrip rowID: Int64, asAnotherProgram raw: RawConnection) throws {
        var record = HistoryRecord()
        record.update(entity: "Trip", rowID: rowID, attributes: ["nights"])
        let hex = record.encoded().map { String(format: "%02X", $0) }.joined()
        try raw.execute(
            """
            BEGIN IMMEDIATE;
            UPDATE Trip SET nights = \(nights) WHERE _pk = \(rowID);
            INSERT INTO _modelkit_history (timestamp, author, bundle, process, changes) VALUES (0, 'other', 'other', '1', x'\(hex)');
            COMMIT;
            """)
    }

    @Test func aSecondProcessSaveReachesAnObserverHereWithinOneSecond() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Entry.self)
        let heard = Heard()
        let observation = container.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }

        let process = try runCrashWriter(at: store.url, saves: 1)
        let exited = Date()
        #expect(process.waitUntilExit() == .exit(0))

        let calls = heard.wait()
        let first = try #require(calls.first, "the observer heard the other process's save")
        #expect(first.names == ["Entry"])
        #expect(first.at.timeIntervalSince(exited) < 1, "heard within a second of the commit")
        let transaction = try #require(try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(transaction.author == "crash-writer")
        #expect(transaction.processIdentifier == String(process.identifier))
        #expect(transaction.changes.count == 20)
    }

    @Test func anotherProgramsCommitIsReadFromTheHistoryAndMergedIntoTheMainContext() async throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Trip.self, TodoItem.self)
        let seed = ModelContext(container)
        let trip = Trip(name: "Lisbon", nights: 3)
        seed.insert(trip)
        try seed.save()
        let id = trip.persistentModelID
        let held = try await MainActor.run { try #require(container.mainContext.model(for: id) as? Trip).nights }
        #expect(held == 3)
        let heard = Heard()
        let observation = container.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }

        try Self.setNights(9, ofTrip: id.rowID!, asAnotherProgram: RawConnection(path: store.url.path))

        let first = try #require(heard.wait().first)
        #expect(first.names == ["Trip"], "the history names what changed; TodoItem did not")
        // The main context merges on the main actor without being asked to read.
        var merged = 0
        for _ in 0..<100 {
            merged = await MainActor.run { (container.mainContext.registeredModel(for: id) as Trip?)?.nights ?? 0 }
            if merged == 9 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(merged == 9)
    }

    @Test func aCommitWithoutHistoryTellsObserversEverythingMayHaveChanged() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Trip.self, TodoItem.self)
        let seed = ModelContext(container)
        seed.insert(Trip(name: "Lisbon", nights: 3))
        try seed.save()
        let heard = Heard()
        let observation = container.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }
        try RawConnection(path: store.url.path).execute("UPDATE Trip SET nights = 4")
        #expect(heard.wait().first?.names == ["Trip", "TodoItem"])
    }

    @Test func observersHearOtherContainersOnTheFileButNotTheirOwn() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Trip.self)
        let heard = Heard()
        let observation = container.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }
        let own = ModelContext(container)
        own.insert(Trip(name: "own", nights: 1))
        try own.save()
        #expect(heard.wait(timeout: 0.5).isEmpty, "the container's own saves post didSave instead")
        let other = ModelContext(try store.container(for: Trip.self))
        other.insert(Trip(name: "elsewhere", nights: 1))
        try other.save()
        #expect(heard.wait().first?.names == ["Trip"])
    }

    /// A save publishes other programs' commits once it holds the write lock, whether or not the
    /// writer's last save left its data version (the save looks at it instead of asking SQLite):
    /// a context that merges afterwards, without a read of its own, has the other program's
    /// change, twice in a row.
    @Test func aSaveAfterAnotherProgramsCommitPublishesItToTheProcesssContexts() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Trip.self, TodoItem.self)
        let holder = ModelContext(container)
        let trip = Trip(name: "Lisbon", nights: 3)
        holder.insert(trip)
        try holder.save()
        let id = try #require(trip.persistentModelID.rowID)
        let raw = try RawConnection(path: store.url.path)
        let writer = ModelContext(container)
        for nights in [9, 11] {
            try Self.setNights(nights, ofTrip: id, asAnotherProgram: raw)
            writer.insert(TodoItem(title: "after \(nights)"))
            try writer.save()
            holder.processPendingChanges()
            #expect(trip.nights == nights, "the save published the other program's commit")
        }
    }
}

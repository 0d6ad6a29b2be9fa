import Foundation
import ModelKit
import Synchronization
import Testing

@testable import ModelKitPostgres

/// On PostgreSQL each context saves through its own connection: one save waiting for a row lock
/// does not hold up the others, a request needs one connection, and a save the server ends for a
/// deadlock is run again.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresConcurrentSaveTests {
    /// Another program's connection, used from one thread at a time.
    final class OtherProgram: @unchecked Sendable {
        let connection: any DatabaseConnection
        init(_ database: PostgresTestDatabase) throws {
            connection = try PostgresDriver(url: database.url(instance: 0), connectTimeout: .seconds(30)).connect()
        }
        func execute(_ sql: String) throws { try connection.execute(sql) }
    }

    /// What threads of a test threw.
    final class Failures: Sendable {
        private let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }

        /// Runs `body` on a thread of its own; the semaphore is signalled when it returns.
        func onThread(_ body: @escaping @Sendable () throws -> Void) -> DispatchSemaphore {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                defer { done.signal() }
                do { try body() } catch { self.list.withLock { $0.append("\(error)") } }
            }
            return done
        }
    }

    func savedItem(_ container: ModelContainer, title: String) throws -> PersistentIdentifier {
        let context = ModelContext(container)
        let item = TodoItem(title: title)
        context.insert(item)
        try context.save()
        return item.persistentModelID
    }

    func title(of id: PersistentIdentifier, in container: ModelContainer) -> String? {
        (ModelContext(container).model(for: id) as? TodoItem)?.title
    }

    @Test func aSaveWaitingForARowLockDoesNotHoldUpOtherContextsSaves() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let locked = try savedItem(container, title: "locked")
        let other = try OtherProgram(database)
        try other.execute(#"BEGIN; SELECT * FROM "TodoItem" FOR UPDATE"#)
        let failures = Failures()

        let waiting = failures.onThread {
            let context = ModelContext(container)
            (context.model(for: locked) as? TodoItem)?.title = "after the lock"
            try context.save()
        }
        try database.waitForALockWait()
        let inserting = failures.onThread {
            let context = ModelContext(container)
            context.insert(TodoItem(title: "needs no lock"))
            try context.save()
        }
        let insertedWhileWaiting = inserting.wait(timeout: DispatchTime.now() + 5) == .success
        #expect(waiting.wait(timeout: DispatchTime.now()) == .timedOut, "the first save still waits for the row")
        try other.execute("COMMIT")
        waiting.wait()
        if !insertedWhileWaiting { inserting.wait() }

        #expect(insertedWhileWaiting)
        #expect(failures.all == [])
        #expect(title(of: locked, in: container) == "after the lock")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 2)
    }

    @Test func aContextReadsAndSavesThroughOneConnectionAndLeavesItForTheNext() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        func connections() throws -> Int {
            Int(try database.rows("SELECT count(*) FROM pg_stat_activity WHERE application_name = '\(database.applicationName(instance: 1))'")[0][0])!
        }
        let opened = try connections()
        for round in 0..<3 {
            let context = ModelContext(container)
            _ = try context.fetchCount(FetchDescriptor<TodoItem>())
            context.insert(TodoItem(title: "request \(round)"))
            try context.save()
            #expect(try connections() == opened + 1, "one connection for the request's reads and its save")
        }
    }

    @Test func anInsertIsThreeRoundTripsWithTheHistoryAndAnnouncementGoingWithTheCommit() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        context.insert(TodoItem(title: "one"))
        try context.save()
        #expect(statements.count == 3, "\(statements)")
        #expect(statements.first == #"BEGIN; LOCK TABLE "_modelkit_history" IN ROW EXCLUSIVE MODE"#)
        #expect(statements.last?.hasPrefix("INSERT INTO _modelkit_history") == true)
        #expect(statements.last?.hasSuffix("; COMMIT") == true)
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 1)
        #expect(history.first?.changes.count == 1)
    }

    @Test func aSaveTheServerEndsForADeadlockIsRunAgainAndWritesEverything() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let first = try savedItem(container, title: "first")
        let second = try savedItem(container, title: "second")
        let other = try OtherProgram(database)
        // The other program waits longer before it looks for deadlocks, so the server ends the save.
        try other.execute("SET deadlock_timeout = '30s'; BEGIN")
        try other.execute(#"UPDATE "TodoItem" SET "priority" = 1 WHERE "title" = 'second'"#)
        let failures = Failures()

        // The save updates `first`, then waits for `second`, which the other program holds.
        let saving = failures.onThread {
            let context = ModelContext(container)
            (context.model(for: first) as? TodoItem)?.title = "first, saved"
            (context.model(for: second) as? TodoItem)?.title = "second, saved"
            try context.save()
        }
        try database.waitForALockWait()
        // The other program now waits for `first`, which the save holds: a deadlock.
        let updating = failures.onThread {
            try other.execute(#"UPDATE "TodoItem" SET "priority" = 2 WHERE "title" = 'first'"#)
        }
        #expect(updating.wait(timeout: DispatchTime.now() + 0.3) == .timedOut, "the save holds the first row")
        #expect(updating.wait(timeout: DispatchTime.now() + 10) == .success, "the server ended the save's transaction")
        try other.execute("COMMIT")
        #expect(saving.wait(timeout: DispatchTime.now() + 10) == .success)

        #expect(failures.all == [])
        #expect(title(of: first, in: container) == "first, saved")
        #expect(title(of: second, in: container) == "second, saved")
        let history = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3, "two inserts and the save, once")
    }
}

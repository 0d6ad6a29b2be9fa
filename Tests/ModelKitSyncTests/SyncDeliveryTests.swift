import Foundation
import ModelKit
import ModelKitSync
import Synchronization
import Testing

/// A transport that loses answers, or runs code of the test's, around the server's.
final class FaultyTransport: SyncTransport {
    let server: SyncServer
    /// How many push answers to lose: the server applied the push, the device never hears.
    let lostPushAnswers = Mutex(0)
    /// How many pushes to drop before they reach the server.
    let droppedPushes = Mutex(0)
    /// Runs before each pull reaches the server.
    let beforePull = Mutex<(@Sendable () async throws -> Void)?>(nil)
    /// Whether each push reaches the server twice at once, as a retry racing the original would.
    let duplicatesPushes = Mutex(false)

    init(server: SyncServer) { self.server = server }

    struct Lost: Error {}
    /// Two deliveries of one push answered differently.
    struct Diverged: Error {
        let first: SyncPushResponse
        let second: SyncPushResponse
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        if droppedPushes.withLock({ count in defer { count = max(0, count - 1) }; return count > 0 }) { throw Lost() }
        let response: SyncPushResponse
        if duplicatesPushes.withLock({ $0 }) {
            async let first = server.push(request)
            async let second = server.push(request)
            let answers = try await [first, second]
            guard answers[0] == answers[1] else { throw Diverged(first: answers[0], second: answers[1]) }
            response = answers[0]
        } else {
            response = try await server.push(request)
        }
        if lostPushAnswers.withLock({ count in defer { count = max(0, count - 1) }; return count > 0 }) { throw Lost() }
        return response
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try await beforePull.withLock { $0 }?()
        return try await server.pull(request)
    }
}

/// Exactly once, saves during a sync, several server instances, and what a device sees of pulls.
@Suite struct SyncDeliveryTests {
    @Test(arguments: ServerKind.available)
    func aPushWhoseAnswerIsLostIsAppliedOnceWhenRetried(_ kind: ServerKind) async throws {
        var policies = SyncPolicies()
        policies.set(\Counter.value, .custom { c in c.server + c.incoming - (c.base ?? 0) })
        let world = try SyncWorld(kind, policies: policies)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device(through: transport)
        let b = try world.device()
        a.context.insert(Counter(name: "c", value: 1))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        let context = ModelContext(a.container)
        try context.fetch(FetchDescriptor<Counter>())[0].value += 5
        try context.save()
        transport.lostPushAnswers.withLock { $0 = 1 }
        await #expect(throws: SyncError.self) { try await a.sync() }
        // B's increment in between: had A's push been applied twice, the sum would be off.
        let bContext = ModelContext(b.container)
        try bContext.fetch(FetchDescriptor<Counter>())[0].value += 10
        try bContext.save()
        try await b.sync()
        try await a.sync()
        try await b.sync()
        #expect(try a.all(Counter.self).map(\.value) == [16])
        #expect(try b.all(Counter.self).map(\.value) == [16])
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Counter>()).map(\.value) == [16])
    }

    @Test(arguments: ServerKind.available)
    func aSaveMadeWhileASyncPullsIsNeitherLostNorOverwritten(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device(through: transport)
        let b = try world.device()
        b.context.insert(Note(title: "Shared", body: "v1"))
        try b.context.save()
        try await b.sync()
        try await a.sync()
        let editing = ModelContext(b.container)
        try editing.fetch(FetchDescriptor<Note>())[0].body = "from B"
        try editing.save()
        try await b.sync()
        // While A pulls B's edit, A's user edits the same note.
        let container = a.container
        transport.beforePull.withLock {
            $0 = {
                let context = ModelContext(container)
                if let note = try context.fetch(FetchDescriptor<Note>()).first, note.body != "typed during sync" {
                    note.body = "typed during sync"
                    try context.save()
                }
            }
        }
        try await a.sync()
        transport.beforePull.withLock { $0 = nil }
        #expect(try a.all(Note.self).map(\.body) == ["typed during sync"])
        try await a.sync()  // pushed now, as the later edit it is
        try await b.sync()
        #expect(try b.all(Note.self).map(\.body) == ["typed during sync"])
    }

    @Test(.enabled(if: ServerKind.available.contains(.postgres), "needs MODELKIT_TEST_POSTGRES_URL: instances share a PostgreSQL database"))
    func devicesSyncingThroughDifferentServerInstancesConverge() async throws {
        let world = try SyncWorld(.postgres, instances: 2)
        let a = try world.device(instance: 1)
        let b = try world.device(instance: 2)
        let c = try world.device(instance: 2)
        a.context.insert(Note(title: "from A"))
        try a.context.save()
        b.context.insert(Note(title: "from B"))
        try b.context.save()
        // Pushes through both instances at once.
        let (clientA, clientB) = (a.client, b.client)
        async let first = clientA.sync()
        async let second = clientB.sync()
        _ = try await (first, second)
        for device in [a, b, c] { try await device.sync() }
        for device in [a, b, c] {
            #expect(Set(try device.all(Note.self).map(\.title)) == ["from A", "from B"])
        }
        // Concurrent edits of one property through two instances end the same everywhere.
        for (device, title) in [(a, "A's title"), (b, "B's title")] {
            let context = ModelContext(device.container)
            try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.title == "from A" }))[0].body = title
            try context.save()
        }
        async let third = clientA.sync()
        async let fourth = clientB.sync()
        _ = try await (third, fourth)
        for device in [a, b, c] { try await device.sync() }
        let bodies = try [a, b, c].map { try $0.all(Note.self, sortBy: [SortDescriptor(\.title)]).map(\.body) }
        #expect(bodies[0] == bodies[1] && bodies[1] == bodies[2])
        #expect(try ModelContext(world.servers[1].container).fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.title)])).map(\.body) == bodies[0])
    }

    @Test func pulledChangesAreOrdinarySavesByTheSyncAuthorAndAreNeverPushedBack() async throws {
        let world = try SyncWorld()
        let a = try world.device()
        let b = try world.device()
        a.context.insert(Note(title: "Hello"))
        try a.context.save()
        try await a.sync()
        let observer = try HistoryObserver(observedModels: [Note.self], authors: [SyncClient.author], modelContainer: b.container)
        try await b.sync()
        let transactions = try ModelContext(b.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.contains { $0.author == SyncClient.author && !$0.changes.isEmpty })
        let next = try await b.sync()
        #expect(next.pushed == 0 && next.pulled == 0)
        for _ in 0..<100 where observer.eventCounter == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(observer.eventCounter > 0)
    }

    @Test func aDeviceWithAnotherSchemaIsRefusedBeforeAnyDataMoves() async throws {
        let world = try SyncWorld()
        let other = try world.device(types: [Note.self, Tag.self, Folder.self])
        other.context.insert(Note(title: "Not to be sent"))
        try other.context.save()
        await #expect(throws: SyncError.self) { try await other.sync() }
        do {
            try await other.sync()
        } catch let error as SyncError {
            #expect(error.code == .schemaMismatch)
        }
        #expect(try ModelContext(world.server.container).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test func aRequestTheAuthorizationHookRefusesChangesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelKitSyncAuth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverContainer = try ModelContainer(
            for: Schema(syncedTypes), configurations: [ModelConfiguration(url: directory.appendingPathComponent("server.store"))])
        struct Refused: Error {}
        let server = try SyncServer(container: serverContainer) { request in
            guard request.credentials["authorization"] == "Bearer good" else { throw Refused() }
        }
        let container = try ModelContainer(for: Schema(syncedTypes), configurations: [ModelConfiguration(url: directory.appendingPathComponent("d.store"))])
        let context = ModelContext(container)
        context.insert(Note(title: "secret"))
        try context.save()
        let intruder = try SyncClient(container: container, transport: server, credentials: ["authorization": "Bearer bad"])
        do {
            try await intruder.sync()
            Issue.record("the hook let a bad credential through")
        } catch let error as SyncError {
            #expect(error.code == .unauthorized)
        }
        #expect(try ModelContext(serverContainer).fetchCount(FetchDescriptor<Note>()) == 0)
        let member = try SyncClient(container: container, transport: server, credentials: ["authorization": "Bearer good"])
        #expect(try await member.sync().pushed == 1)
    }

    @Test(arguments: ServerKind.available)
    func everyAttributeTypeExternalStorageAndClassHierarchiesRoundTripExactly(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        for seed in 0..<4 { a.context.insert(Sample(name: "s\(seed)", seed: seed)) }
        a.context.insert(Item(title: "plain item"))
        a.context.insert(TodoTask(title: "a task", done: true))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        let sent = try a.all(Sample.self, sortBy: [SortDescriptor(\.name)])
        let received = try b.all(Sample.self, sortBy: [SortDescriptor(\.name)])
        #expect(received.count == 4)
        for (x, y) in zip(sent, received) {
            #expect(x.int == y.int && x.int8 == y.int8 && x.uint64 == y.uint64)
            #expect(x.double.bitPattern == y.double.bitPattern && x.float.bitPattern == y.float.bitPattern)
            #expect(x.flag == y.flag && x.date == y.date && x.data == y.data && x.uuid == y.uuid && x.url == y.url)
            #expect(x.decimal == y.decimal && x.optional == y.optional && x.list == y.list && x.point == y.point && x.kind == y.kind)
            #expect(x.photo == y.photo)
        }
        let items = try b.all(Item.self, sortBy: [SortDescriptor(\.title)])
        #expect(items.map(\.title) == ["a task", "plain item"])
        #expect((items[0] as? TodoTask)?.done == true)
        #expect(!(items[1] is TodoTask))
    }
}

import Foundation
import ModelKit
@testable import ModelKitSync
import Synchronization
import Testing

/// Live sync: devices running ``SyncClient/run()`` push each save and pull the server's news
/// without calling `sync()`, retry what fails, stop when cancelled, and report their status.
@Suite struct SyncLiveTests {
    @Test(arguments: ServerKind.available)
    func runningDevicesExchangeSavesWithoutCallingSync(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await Self.running([a, b]) {
            a.context.insert(Note(title: "from a"))
            try a.context.save()
            try await Self.eventually("b to receive a's note") { try b.all(Note.self).map(\.title) == ["from a"] }
            let note = try #require(try b.context.fetch(FetchDescriptor<Note>()).first)
            note.title = "edited on b"
            try b.context.save()
            try await Self.eventually("a to receive b's edit") { try a.all(Note.self).map(\.title) == ["edited on b"] }
            try await Self.eventually("both to have nothing to push") { a.client.status.pendingChanges == 0 && b.client.status.pendingChanges == 0 }
        }
    }

    @Test func runningDevicesExchangeSavesOverHTTP() async throws {
        let world = try SyncWorld()
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: world.server))
        http.start()
        defer { http.stop() }
        let url = URL(string: "http://127.0.0.1:\(http.port)/sync")!
        let a = try world.device(through: HTTPSyncTransport(url: url))
        let b = try world.device(through: HTTPSyncTransport(url: url))
        try await Self.running([a, b]) {
            a.context.insert(Note(title: "over HTTP"))
            try a.context.save()
            try await Self.eventually("b to receive a's note over HTTP") { try b.all(Note.self).map(\.title) == ["over HTTP"] }
            b.context.insert(Note(title: "back"))
            try b.context.save()
            try await Self.eventually("a to receive b's note over HTTP") { try a.all(Note.self).map(\.title).sorted() == ["back", "over HTTP"] }
        }
    }

    @Test func anUnreachableServerShowsPendingChangesAndTheErrorThenSyncsWhenBack() async throws {
        let world = try SyncWorld()
        let link = Link(world.server)
        link.isDown = true
        let a = try world.device(through: link)
        let b = try world.device()
        try await Self.running([a]) {
            a.context.insert(Note(title: "offline"))
            a.context.insert(Note(title: "offline too"))
            try a.context.save()
            try await Self.eventually("a to show two pending changes and why they wait") {
                a.client.status.pendingChanges == 2 && a.client.status.lastError?.code == .transportFailed
            }
            link.isDown = false
            try await Self.eventually("a to push once the server is back") {
                a.client.status.pendingChanges == 0 && a.client.status.lastError == nil && a.client.status.lastSyncDate != nil
            }
            b.context.insert(Note(title: "from b"))
            try b.context.save()
            try await b.sync()
            try await Self.eventually("a to pull again once the server is back") { try a.all(Note.self).count == 3 }
        }
        try await b.sync()
        #expect(try b.all(Note.self).map(\.title).sorted() == ["from b", "offline", "offline too"])
    }

    @Test func aDeviceWithNothingToPushClearsItsErrorAsSoonAsTheServerIsBack() async throws {
        let world = try SyncWorld()
        let link = Link(world.server)
        link.isDown = true
        let a = try world.device(through: link)
        try await Self.running([a]) {
            try await Self.eventually("a to say why its pulls fail") { a.client.status.lastError?.code == .transportFailed }
            #expect(a.client.status.pendingChanges == 0)
            link.isDown = false
            // Well before a long poll's 25 seconds.
            try await Self.eventually("a's error to clear", timeout: .seconds(10)) { a.client.status.lastError == nil }
        }
    }

    @Test func pullsGoOnWhileAPushKeepsFailing() async throws {
        let world = try SyncWorld()
        let link = Link(world.server)
        link.refusesPushes = true
        let a = try world.device(through: link)
        let b = try world.device()
        try await Self.running([a]) {
            a.context.insert(Note(title: "stuck"))
            try a.context.save()
            try await Self.eventually("a's push to fail") { a.client.status.lastError?.code == .serverFailed }
            b.context.insert(Note(title: "from b"))
            try b.context.save()
            try await b.sync()
            try await Self.eventually("a to pull b's note while its push fails") { try a.all(Note.self).map(\.title).contains("from b") }
            #expect(a.client.status.pendingChanges == 1)
            // The pulls' successes leave the pushes' error standing.
            #expect(a.client.status.lastError?.code == .serverFailed)
        }
    }

    @Test func cancellingRunAbandonsTheRequestUnderWayAndReturnsWithNoneLeft() async throws {
        let world = try SyncWorld()
        // Each request is held until its task is cancelled.
        let link = Link(world.server, waits: false, holds: true)
        let a = try world.device(through: link)
        let client = a.client
        var started = link.started.makeAsyncIterator()
        let live = Task { try await client.run() }
        await started.next()
        live.cancel()
        try await Self.bounded { try await live.value }
        // Every request the client made has returned: run() leaves nothing running that could
        // send another, since its requests are all made by its own child tasks.
        #expect(link.requestsUnderWay == 0)
        #expect(link.requests >= 1)
        #expect(a.client.status.isSyncing == false)
    }

    @Test func unauthorizedEndsRunWithTheError() async throws {
        let world = try SyncWorld()
        struct Refused: Error {}
        let server = try SyncServer(container: try world.serverContainer()) { _ in throw Refused() }
        let a = try world.device(through: server)
        let client = a.client
        let error = try await #require(throws: SyncError.self) {
            try await Self.bounded { try await client.run() }
        }
        #expect(error.code == .unauthorized)
        #expect(a.client.status.lastError?.code == .unauthorized)
    }

    @Test func statusUpdatesYieldTheCurrentStatusFirstThenChangesInOrder() async throws {
        let world = try SyncWorld()
        let link = Link(world.server)
        let a = try world.device(through: link)
        var updates = a.client.statusUpdates.makeAsyncIterator()
        let first = await updates.next()
        #expect(first == a.client.status)
        #expect(first == SyncStatus())

        a.context.insert(Note(title: "one"))
        try a.context.save()
        link.isDown = true
        await #expect(throws: SyncError.self) { try await a.sync() }
        link.isDown = false
        try await a.sync()

        var seen: [SyncStatus] = []
        for _ in 0..<4 { seen.append(try #require(await updates.next())) }
        let synced = try #require(seen.last?.lastSyncDate)
        let failure = try #require(seen[1].lastError)
        #expect(failure.code == .transportFailed)
        #expect(seen == [
            SyncStatus(isSyncing: true, pendingChanges: 1),
            SyncStatus(isSyncing: false, pendingChanges: 1, lastError: failure),
            SyncStatus(isSyncing: true, pendingChanges: 1, lastError: failure),
            SyncStatus(isSyncing: false, pendingChanges: 0, lastSyncDate: synced),
        ])
        #expect(a.client.status == seen.last)
    }

    @Test func twentyRunningDevicesAllReceiveOneSave() async throws {
        let world = try SyncWorld()
        let devices = try (0..<20).map { _ in try world.device() }
        try await Self.running(devices) {
            devices[0].context.insert(Note(title: "to everyone"))
            try devices[0].context.save()
            for (index, device) in devices.enumerated() {
                try await Self.eventually("device \(index) to receive the save") { try device.all(Note.self).map(\.title) == ["to everyone"] }
            }
        }
    }

    @Test func aWaitingPullIsHeldUntilAnotherDevicePushes() async throws {
        let world = try SyncWorld()
        let a = try world.device()
        let b = try world.device()
        try await a.sync()
        let cursor = try ClientPull(client: a.client).position().cursor
        let envelope = a.client.envelope
        // Nothing new: answered empty when the wait ends.
        let empty = try await world.server.pull(SyncPullRequest(envelope: envelope, cursor: cursor, wait: 0.05))
        #expect(empty.changes.isEmpty && !empty.hasMore)
        let server = world.server
        let held = Task { try await server.pull(SyncPullRequest(envelope: envelope, cursor: cursor, wait: 30)) }
        b.context.insert(Note(title: "news"))
        try b.context.save()
        try await b.sync()
        let page = try await Self.bounded { try await held.value }
        #expect(page.changes.map(\.entity) == ["Note"])
    }

    @Test func heldPullsWokenByOneCommitShareItsPageButNoDeviceGetsItsOwnPush() async throws {
        let world = try SyncWorld()
        let a = try world.device()
        let b = try world.device()
        let c = try world.device()
        try await a.sync()
        let cursor = try ClientPull(client: a.client).position().cursor
        let server = world.server
        let held = [a, b, c].map { device in
            let envelope = device.client.envelope
            return Task { try await server.pull(SyncPullRequest(envelope: envelope, cursor: cursor, wait: 30)) }
        }
        a.context.insert(Note(title: "from a"))
        try a.context.save()
        try await a.sync()
        for other in held[1...] {
            let page = try await Self.bounded { try await other.value }
            #expect(page.changes.map(\.entity) == ["Note"])
        }
        // The pusher's pull, woken by the same commit, reads its own page: its push is not in it.
        held[0].cancel()
        let own = try await Self.bounded { try await held[0].value }
        #expect(own.changes.isEmpty && own.cursor != cursor)
    }

    @Test func aPullRequestWithoutAWaitDecodesAsBefore() throws {
        let json = #"{"envelope":{"protocolVersion":1,"schema":"s","device":"d","credentials":{}},"cursor":"h:0","limit":100}"#
        let request = try SyncJSON.decoder.decode(SyncPullRequest.self, from: Data(json.utf8))
        #expect(request.wait == nil)
        #expect(String(decoding: try SyncJSON.encoder.encode(request), as: UTF8.self).contains("wait") == false)
        let waiting = SyncPullRequest(envelope: request.envelope, cursor: "h:0", wait: 25)
        #expect(try SyncJSON.decoder.decode(SyncPullRequest.self, from: SyncJSON.encoder.encode(waiting)).wait == 25)
    }

    @Test func retriesBackOffExponentiallyWithJitterAndHonourRetryAfter() throws {
        let world = try SyncWorld()
        let a = try world.device()
        let failed = SyncError(.transportFailed, "down")
        for failures in 1...10 {
            let delay = a.client.retryDelay(after: failures, failed)
            let backoff = min(30.0, pow(2, Double(failures - 1)))
            #expect(delay >= .milliseconds(Int64(backoff * 500) - 1) && delay <= .seconds(backoff))
        }
        #expect(a.client.retryDelay(after: 1, SyncError(.serverFailed, "busy", retryAfter: 90)) == .seconds(90))
        #expect(HTTPSyncTransport.retryAfter("120") == 120)
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        #expect(HTTPSyncTransport.retryAfter("Sun, 09 Sep 2001 01:47:10 GMT", now: now) == 30)
        #expect(HTTPSyncTransport.retryAfter("soon") == nil)
    }

    // MARK: Support

    /// Runs `body` while `devices` run live, with short retries; then cancels them and checks
    /// that each ended without an error.
    static func running(_ devices: [Device], _ body: () async throws -> Void) async throws {
        let tasks = devices.map { device in
            device.client.retryDelays = .milliseconds(20) ... .milliseconds(200)
            device.client.pollInterval = .milliseconds(50)
            let client = device.client
            return Task { try await client.run() }
        }
        do {
            try await body()
        } catch {
            for task in tasks { task.cancel() }
            throw error
        }
        for task in tasks { task.cancel() }
        for task in tasks { try await bounded { try await task.value } }
    }

    /// Polls `condition` until it holds, failing with `what` after `timeout`: long, because a
    /// full `swift test` runs hundreds of tests at once on two cores, and running devices get
    /// little of them until it thins out; alone, the suite takes about a second. FoundationNetworking's
    /// `URLSession` on Linux can spin in the kernel for a minute or two in such a run (its curl
    /// handle re-registering socket sources), which starves every device meanwhile.
    static func eventually(_ what: String, timeout: Duration = .seconds(300), _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out after \(timeout) waiting for \(what)")
                throw TimedOut(what: what)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// `body`'s result, or a failure if it takes more than `timeout`.
    static func bounded<R: Sendable>(_ timeout: Duration = .seconds(120), _ body: @escaping @Sendable () async throws -> R) async throws -> R {
        try await withThrowingTaskGroup(of: R?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let result = try await group.next()!, let value = result as R? else {
                throw TimedOut(what: "a task to end within \(timeout)")
            }
            return value
        }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }
}

/// A way to the server that can be cut, counting the requests that reach it.
final class Link: SyncTransport {
    private let server: SyncServer
    private let waits: Bool
    private let holds: Bool
    private let down = Atomic(false)
    private let count = Atomic(0)
    private let underWay = Atomic(0)
    private let refusing = Atomic(false)
    private let announce: AsyncStream<Void>.Continuation
    /// Yields as each request starts.
    let started: AsyncStream<Void>

    /// With `holds`, each request waits until its task is cancelled, then throws.
    init(_ server: SyncServer, waits: Bool = true, holds: Bool = false) {
        self.server = server
        self.waits = waits
        self.holds = holds
        (started, announce) = AsyncStream.makeStream()
    }

    var isDown: Bool {
        get { down.load(ordering: .relaxed) }
        set { down.store(newValue, ordering: .relaxed) }
    }

    /// Pushes are answered with a server failure; pulls go through.
    var refusesPushes: Bool {
        get { refusing.load(ordering: .relaxed) }
        set { refusing.store(newValue, ordering: .relaxed) }
    }

    var requests: Int { count.load(ordering: .relaxed) }
    /// The requests started and not yet returned.
    var requestsUnderWay: Int { underWay.load(ordering: .relaxed) }
    var supportsWaiting: Bool { waits }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try await pass {
            if self.refusesPushes { throw SyncError(.serverFailed, "the server cannot take pushes now") }
            return try await self.server.push(request)
        }
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try await pass { try await self.server.pull(request) }
    }

    private func pass<R>(_ body: () async throws -> R) async throws -> R {
        count.add(1, ordering: .relaxed)
        underWay.add(1, ordering: .relaxed)
        defer { underWay.subtract(1, ordering: .relaxed) }
        announce.yield()
        if isDown { throw SyncError(.transportFailed, "the link is down") }
        // Held for an hour: until cancelled, which ends the sleep with a CancellationError.
        if holds { try await Task.sleep(for: .seconds(3600)) }
        return try await body()
    }
}

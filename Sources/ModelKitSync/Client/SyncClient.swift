import Dispatch
import Foundation
import ModelKit
import Synchronization

/// A device's side of sync: its container (SQLite) and the way to the server.
///
/// ```swift
/// let client = try SyncClient(container: container, transport: HTTPSyncTransport(url: serverURL))
/// let report = try await client.sync()   // push local changes, then pull the server's
/// print(report.pushed, report.pulled, report.conflicts)
/// ```
///
/// What it pushes comes from the store's history since the last push; what it pulls is saved as
/// ordinary saves by the author ``author``, which observers, `ModelState`, history and other
/// processes see, and which are never pushed back. A local edit made while a sync runs is kept
/// and pushed next time. Its state (identifiers, base values, cursor, an unanswered push) lives
/// in the store's own tables, so a device killed mid-sync picks up where it stopped: nothing is
/// lost and nothing applied twice.
///
/// ``run()`` keeps the device in sync until its task is cancelled: it pushes each local save at
/// once, pulls as soon as the server has news, and retries what fails. ``status`` and
/// ``statusUpdates`` say where it stands.
public final class SyncClient: Sendable {
    /// The history author of the saves that apply the server's changes.
    public static let author = "ModelKitSync"

    /// The device's store.
    public let container: ModelContainer
    /// How the device reaches the server.
    public let transport: any SyncTransport
    /// The device's identifier, made on its first sync setup and kept in its store.
    public let device: String
    let schema: SyncSchema
    /// The container's version of its migration plan, the one whose models it has; nil without one.
    let schemaVersion: String?
    let credentials: [String: String]
    private let queue = DispatchQueue(label: "ModelKitSync.SyncClient")
    private let gate = SyncGate()
    let statusCenter = SyncStatusCenter()
    /// How many times pushes' answers and pulled pages were applied: a page fetched before a
    /// change of it may be stale, and is fetched again.
    let applied = Atomic<UInt64>(0)
    /// How many pushes' answers were applied: the end of a full download's catch-up fetched
    /// before one may lack that push's rows (see ``ClientPull``).
    let answeredPushes = Atomic<UInt64>(0)
    /// The count of ``SyncStatus/pendingChanges`` so far; read and written on the client's queue.
    let pendingScan = Mutex(PendingScan())
    let settings = Mutex(LiveSettings())

    /// A client of `container`'s store, reaching the server through `transport`, sending
    /// `credentials` with each request (over HTTP, headers are added by the transport).
    /// - Throws: ``SyncError`` with ``SyncError/Code/unsupportedContainer`` for a container of
    ///   several stores or one that cannot save; what creating sync's tables throws.
    public init(container: ModelContainer, transport: any SyncTransport, credentials: [String: String] = [:]) throws {
        try Self.checkSyncable(container)
        self.container = container
        self.transport = transport
        self.credentials = credentials
        schema = SyncSchema(container.schema)
        let fingerprint = schema.fingerprint
        schemaVersion = container.migrationPlan?.schemas.last { Schema(versionedSchema: $0).replicaFingerprint == fingerprint }?
            .versionIdentifier.description
        device = try ModelContext(container).replicaWrite { sql in
            try SyncTables.create(in: sql)
            if let device = try sql.state(ClientState.device) { return device }
            let device = UUID().uuidString.lowercased()
            try sql.setState(ClientState.device, device)
            return device
        }
        let pending = try countPending()
        statusCenter.update { $0.pendingChanges = pending }
    }

    static func checkSyncable(_ container: ModelContainer) throws {
        guard container.configurations.count <= 1, !container.configurations.contains(where: { !$0.allowsSave }) else {
            throw SyncError(
                .unsupportedContainer,
                "sync needs a container of one store that saves; give the synced models a container of their own")
        }
    }

    /// Pushes the device's changes since its last push, then pulls the server's since its last
    /// pull, page by page. One sync runs at a time; a second call waits for the first.
    /// - Throws: ``SyncError``: ``SyncError/Code/transportFailed`` when the server cannot be
    ///   reached (sync again later: nothing is lost or applied twice),
    ///   ``SyncError/Code/schemaMismatch``, ``SyncError/Code/unauthorized``, and the server's
    ///   failures. A device too far behind the server is downloaded again in full, keeping its
    ///   unpushed changes.
    @discardableResult
    public func sync() async throws -> SyncReport {
        try await exchange(.sync) { try await self.syncRounds(self.envelope) }
    }

    /// What each request says of the device.
    var envelope: SyncEnvelope {
        SyncEnvelope(schema: schema.fingerprint, device: device, credentials: credentials, schemaVersion: schemaVersion)
    }

    /// A push, then a pull, then the refusals no sync reported yet.
    func syncRounds(_ envelope: SyncEnvelope) async throws -> SyncReport {
        var report = SyncReport()
        for round in 1...3 {
            do {
                try await push(envelope, into: &report)
                try await pull(envelope, into: &report)
                report.rejections = try await work {
                    try ModelContext(self.container).replicaWrite { sql in
                        let rejections = try ClientPush.unreported(in: sql)
                        try sql.setState(ClientState.rejections, nil)
                        return rejections
                    }
                }
                return report
            } catch is ClientApply.LocalChangesFirst where round < 3 {
                // A local change made while this sync ran holds a value the server gave
                // another row: it goes first.
                continue
            } catch is ClientApply.LocalChangesFirst {
                break
            }
        }
        throw SyncError(.transportFailed, "local changes kept taking unique values the server gave other rows while syncing; sync again: nothing was lost")
    }

    /// Runs `body` as the one exchange with the server under way, saying so in the status, and
    /// ends it with the count of pending changes and the outcome in one status update.
    func exchange<R: Sendable>(_ attempt: SyncAttempt, _ body: () async throws -> R) async throws -> R {
        await gate.enter()
        let waiting = try? await work { try self.countPending() }
        statusCenter.beginExchange(pending: waiting)
        let result: Result<R, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        let pending = try? await work { try self.countPending() }
        let outcome: SyncStatusCenter.Outcome
        switch result {
        case .success: outcome = .succeeded
        case .failure(let error):
            // A cancelled request's failure says nothing of the server.
            if !Task.isCancelled, let error = Self.reported(error) { outcome = .failed(error) } else { outcome = .cancelled }
        }
        statusCenter.endExchange(attempt, outcome) { status in
            if let pending { status.pendingChanges = pending }
            if case .success = result { status.lastSyncDate = Date() }
        }
        await gate.leave()
        return try result.get()
    }

    /// The status's form of `error`; nil for a cancellation.
    static func reported(_ error: any Error) -> SyncError? {
        if error is CancellationError { return nil }
        if let error = error as? SyncError { return error }
        return SyncError(.deviceFailed, "the device's store failed while syncing, and kept none of the failed step: \(error)")
    }

    /// Counts ``SyncStatus/pendingChanges``, reading the history since the last count.
    func countPending() throws -> Int {
        try pendingScan.withLock { scan in try ClientPush(client: self).pendingCount(&scan) }
    }

    /// Pushes until nothing is left to push.
    func push(_ envelope: SyncEnvelope, into report: inout SyncReport) async throws {
        while let prepared = try await work({ try ClientPush(client: self).prepare(envelope) }) {
            // An unanswered push goes again as it was, with today's credentials; made before the
            // app's models changed version, it goes as one of the version it was made on.
            var request = prepared.request
            let made = request.envelope
            request.envelope = envelope
            if made.schema != envelope.schema {
                request.envelope.schema = made.schema
                request.envelope.schemaVersion = made.schemaVersion
            }
            let response = try await call { [request] in try await self.transport.push(request) }
            try await work {
                try ClientPush(client: self).finish(prepared, response)
                self.applied.add(1, ordering: .relaxed)
                self.answeredPushes.add(1, ordering: .relaxed)
            }
            report.pushed += response.accepted
            report.conflicts += response.conflicts
        }
    }

    /// Pulls until the server has nothing more. Each page is applied while the next one is
    /// fetched: the server's work and the device's overlap.
    /// With `first`, a page fetched already after the device's cursor, that goes first.
    func pull(_ envelope: SyncEnvelope, into report: inout SyncReport, first: FetchedPage? = nil) async throws {
        var page: FetchedPage
        if let first { page = first } else { page = try await firstPage(envelope) }
        while true {
            // In a full download or its catch-up, the next page lists the device's pushes too.
            let ownToo = page.includesOwnChanges || page.response.isFullDownload
            var next = page.response.hasMore ? Task { [page] in try await self.fetch(envelope, after: page.response.cursor, includingOwn: ownToo) } : nil
            do {
                let outcome = try await work { [page] in
                    defer { self.applied.add(1, ordering: .relaxed) }
                    let raced = self.answeredPushes.load(ordering: .relaxed) != page.answeredPushes
                    return try ClientPull(client: self).apply(page.response, mayEndDownload: !raced)
                }
                report.pulled += outcome.changed
                // A push answered since the catch-up's last page was fetched may be missing from
                // it: that page is read again, with the push, before rows are dropped.
                if next == nil, outcome.downloadGoesOn {
                    next = Task { [page] in try await self.fetch(envelope, after: page.response.cursor, includingOwn: true) }
                }
            } catch {
                next?.cancel()
                // No request of the sync outlives it.
                _ = try? await next?.value
                throw error
            }
            guard let next else { break }
            do {
                page = try await next.value
            } catch let error as SyncError where error.code == .tooFarBehind {
                try await work {
                    try ClientPull(client: self).startFullDownload()
                    self.applied.add(1, ordering: .relaxed)
                }
                page = try await firstPage(envelope)
            }
        }
    }

    /// A page as fetched: whether it was asked to list the device's own pushes, and how many
    /// push answers the device had applied when it asked.
    struct FetchedPage: Sendable {
        let response: SyncPullResponse
        let includesOwnChanges: Bool
        let answeredPushes: UInt64
    }

    /// The first page after the device's cursor: a full download, if the server says the
    /// device is too far behind.
    func firstPage(_ envelope: SyncEnvelope) async throws -> FetchedPage {
        let (cursor, catchingUp) = try await work { try ClientPull(client: self).position() }
        do {
            return try await fetch(envelope, after: cursor, includingOwn: catchingUp)
        } catch let error as SyncError where error.code == .tooFarBehind {
            try await work {
                try ClientPull(client: self).startFullDownload()
                self.applied.add(1, ordering: .relaxed)
            }
            return try await fetch(envelope, after: nil, includingOwn: true)
        }
    }

    /// The page after `cursor`; with `includingOwn`, listing the device's own pushes too.
    func fetch(_ envelope: SyncEnvelope, after cursor: String?, includingOwn: Bool, wait: Double? = nil) async throws -> FetchedPage {
        let answered = answeredPushes.load(ordering: .relaxed)
        let request = SyncPullRequest(envelope: envelope, cursor: cursor, wait: wait, includesOwnChanges: includingOwn ? true : nil)
        let response = try await call { try await self.transport.pull(request) }
        return FetchedPage(response: response, includesOwnChanges: includingOwn, answeredPushes: answered)
    }

    /// Runs `body` on the client's queue, where blocking on the store is allowed.
    func work<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: body)) }
        }
    }

    /// Calls the transport, reporting a failure that is not the server's answer as a transport failure.
    func call<R>(_ body: () async throws -> R) async throws -> R {
        do {
            return try await body()
        } catch let error as SyncError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SyncError(.transportFailed, "the request did not complete (\(error)); sync again later: nothing is lost or applied twice")
        }
    }
}

/// One sync at a time, across suspensions.
private actor SyncGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

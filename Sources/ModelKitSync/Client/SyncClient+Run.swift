import Foundation
import ModelKit

/// How ``SyncClient/run()`` paces itself.
struct LiveSettings: Sendable {
    var pollInterval: Duration = .seconds(5)
    var pullWait: Duration = .seconds(25)
    var retryDelays: ClosedRange<Duration> = .seconds(1) ... .seconds(30)
}

extension SyncClient {
    /// How often ``run()`` pulls when its transport cannot wait for the server's news
    /// (``SyncTransport/supportsWaiting`` is false). 5 seconds unless set.
    public var pollInterval: Duration {
        get { settings.withLock { $0.pollInterval } }
        set { settings.withLock { $0.pollInterval = max(newValue, .milliseconds(1)) } }
    }

    /// How long ``run()`` asks the server to hold a pull while it has nothing new (a long poll;
    /// see ``SyncPullRequest/wait``). 25 seconds unless set: under most proxies' idle timeouts.
    public var pullWait: Duration {
        get { settings.withLock { $0.pullWait } }
        set { settings.withLock { $0.pullWait = max(newValue, .milliseconds(1)) } }
    }

    /// The shortest and the longest wait before ``run()`` tries again after a failure: the
    /// first retry waits about the shortest, each next one twice as long, up to the longest,
    /// each with random jitter, and never less than a `Retry-After` the server sent
    /// (``SyncError/retryAfter``). 1 to 30 seconds unless set.
    public var retryDelays: ClosedRange<Duration> {
        get { settings.withLock { $0.retryDelays } }
        set { settings.withLock { $0.retryDelays = newValue } }
    }

    /// The device's sync status now.
    public var status: SyncStatus { statusCenter.status }

    /// The current status, then each change of it, once and in order; each call makes a stream
    /// of its own. Drive a SwiftUI view with it through an `@Observable` model (see *Syncing
    /// without CloudKit*).
    public var statusUpdates: AsyncStream<SyncStatus> { statusCenter.updates() }

    /// Keeps the device in sync until the task running it is cancelled, then returns.
    ///
    /// ```swift
    /// let live = Task { try await client.run() }
    /// // …
    /// live.cancel()
    /// ```
    ///
    /// Each local save, by any context of the container or another process on its file, is
    /// pushed at once (saves made while a push is under way go in the next). Pulls follow the
    /// server: with a transport that ``SyncTransport/supportsWaiting``, a pull waits on the
    /// server until it has news (up to ``pullWait``) and the next one follows at once;
    /// otherwise the device pulls every ``pollInterval``. Pushes and pulls retry what fails
    /// with exponential backoff (``retryDelays``) and keep ``status`` saying why, each on its
    /// own: a push that keeps failing does not hold up pulls. ``sync()`` may be called
    /// meanwhile; one push or pull runs at a time.
    ///
    /// Cancelling ends it between steps, or abandons a request under way: an answer is applied
    /// whole or not at all, and a push whose answer was lost goes again, applied once.
    /// Refusals of pushed changes (``SyncReport/rejections``) wait for the next ``sync()``'s
    /// report.
    /// - Throws: ``SyncError`` that retrying cannot fix: ``SyncError/Code/unauthorized`` and
    ///   ``SyncError/Code/schemaMismatch``.
    public func run() async throws {
        let envelope = envelope
        let synced = Set(schema.entities.keys)
        let (saves, announce) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let observation = container.observeAllCommits { entities in
            if !entities.isDisjoint(with: synced) { announce.yield() }
        }
        defer {
            observation.cancel()
            announce.finish()
        }
        // What waits from before: pushed at once.
        announce.yield()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.pushes(after: saves, envelope) }
            group.addTask { try await self.pulls(envelope) }
            // Each ends only when cancelled, or with an error retrying cannot fix.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// Pushes after each save announced, until cancelled.
    private func pushes(after saves: AsyncStream<Void>, _ envelope: SyncEnvelope) async throws {
        for await _ in saves {
            // A save of the device's own pulls, or one pushed already: nothing to send.
            if let pending = try? await work({ try self.countPending() }) {
                statusCenter.update { $0.pendingChanges = pending }
                if pending == 0 { continue }
            }
            var failures = 0
            while !Task.isCancelled {
                do {
                    var report = SyncReport()
                    try await exchange(.push) {
                        do {
                            try await self.push(envelope, into: &report)
                        } catch is ClientApply.LocalChangesFirst {
                            _ = try await self.syncRounds(envelope)
                        }
                    }
                    break
                } catch {
                    guard try retryable(error) else { return }
                    failures += 1
                    guard await pause(retryDelay(after: failures, error)) else { return }
                }
            }
            if Task.isCancelled { return }
        }
    }

    /// Pulls until cancelled: each as soon as the server has news, or every ``pollInterval``.
    private func pulls(_ envelope: SyncEnvelope) async throws {
        var failures = 0
        while !Task.isCancelled {
            do {
                if transport.supportsWaiting, failures == 0 {
                    let held = try await waitingPull(envelope)
                    // A server that answers at once though asked to wait does not wait: poll it.
                    if !held, await !pause(pollInterval) { return }
                } else {
                    // After a failure, a pull that does not wait: the status says at once that
                    // the server is back.
                    try await exchange(.pull) { try await self.pullRounds(envelope) }
                    if !transport.supportsWaiting, await !pause(pollInterval) { return }
                }
                failures = 0
            } catch {
                if Task.isCancelled { return }
                // Said by the exchange already, but not for the request of a waiting pull.
                if let error = Self.reported(error) { statusCenter.fail(.pull, error) }
                guard try retryable(error) else { return }
                failures += 1
                guard await pause(retryDelay(after: failures, error)) else { return }
            }
        }
    }

    /// One long poll: asks for the page after the device's cursor, which the server holds while
    /// it has nothing, then applies what came with what follows it. Returns whether the server
    /// held the request (or had news).
    private func waitingPull(_ envelope: SyncEnvelope) async throws -> Bool {
        let (position, seen) = try await work { (try ClientPull(client: self).position(), self.applied.load(ordering: .relaxed)) }
        let wait = pullWait
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18
        let sent = ContinuousClock.now
        var fetched: FetchedPage?
        do {
            fetched = try await fetch(envelope, after: position.cursor, includingOwn: position.catchingUp, wait: seconds)
        } catch let error as SyncError where error.code == .tooFarBehind {
            // The pull of an exchange downloads everything again.
            fetched = nil
        }
        if Task.isCancelled { throw CancellationError() }
        // Nothing happened: nothing to apply, and the status stays as it is. A catch-up's end
        // is applied all the same: it ends the download.
        if let response = fetched?.response, !position.catchingUp, response.changes.isEmpty, response.merged.isEmpty, !response.hasMore,
            response.cursor == position.cursor
        {
            return ContinuousClock.now - sent >= wait / 2
        }
        try await exchange(.pull) {
            // A page read before the device applied anything since is still after its cursor;
            // otherwise it may be stale, and the exchange pulls again.
            let page = self.applied.load(ordering: .relaxed) == seen ? fetched : nil
            try await self.pullRounds(envelope, first: page)
        }
        return true
    }

    /// A pull to the end, from `first` if given; a push first when a local change must go before.
    private func pullRounds(_ envelope: SyncEnvelope, first: FetchedPage? = nil) async throws {
        var report = SyncReport()
        do {
            try await pull(envelope, into: &report, first: first)
        } catch is ClientApply.LocalChangesFirst {
            _ = try await syncRounds(envelope)
        }
    }

    /// Whether to try again after `error`: false when the task was cancelled; throws an error
    /// retrying cannot fix.
    private func retryable(_ error: any Error) throws -> Bool {
        if Task.isCancelled || error is CancellationError { return false }
        if let error = error as? SyncError, error.code == .unauthorized || error.code == .schemaMismatch { throw error }
        return true
    }

    /// The wait before retry `failures` (1 for the first): exponential, jittered, at least the
    /// server's `Retry-After`.
    func retryDelay(after failures: Int, _ error: any Error) -> Duration {
        let delays = retryDelays
        let shortest = Self.seconds(delays.lowerBound)
        let longest = Self.seconds(delays.upperBound)
        let backoff = min(longest, shortest * pow(2, Double(min(failures, 32) - 1)))
        // Between half and all of it, so that devices failing together do not retry together.
        var delay = backoff * Double.random(in: 0.5...1)
        if let retryAfter = (error as? SyncError)?.retryAfter { delay = max(delay, retryAfter) }
        return .milliseconds(Int64(delay * 1_000))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Sleeps for `duration`; false if the task was cancelled meanwhile.
    private func pause(_ duration: Duration) async -> Bool {
        do {
            try await Task.sleep(for: duration)
            return true
        } catch {
            return false
        }
    }
}

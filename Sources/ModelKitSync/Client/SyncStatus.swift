import Foundation
import Synchronization

/// Where a device's sync stands: read ``SyncClient/status`` for now, or follow
/// ``SyncClient/statusUpdates``.
///
/// ```swift
/// let status = client.status
/// if status.pendingChanges > 0, let error = status.lastError { show("\(status.pendingChanges) changes wait: \(error.message)") }
/// ```
public struct SyncStatus: Sendable, Equatable {
    /// Whether a push or pull is under way: sent, or being applied. A pull waiting on the server
    /// for news (see ``SyncPullRequest/wait``) is not.
    public var isSyncing: Bool
    /// How many rows the next push would send: local changes the server has not accepted yet.
    /// 0 right after the server accepted everything.
    public var pendingChanges: Int
    /// When the last push or pull that completed ended; nil before the first.
    public var lastSyncDate: Date?
    /// Why the last attempt failed; nil after one that succeeded. ``SyncClient/run()`` retries
    /// meanwhile. Pushes and pulls are attempts of their own there: while pushes keep failing,
    /// pulls that succeed leave the pushes' error in place, and the other way round.
    public var lastError: SyncError?

    public init(isSyncing: Bool = false, pendingChanges: Int = 0, lastSyncDate: Date? = nil, lastError: SyncError? = nil) {
        self.isSyncing = isSyncing
        self.pendingChanges = pendingChanges
        self.lastSyncDate = lastSyncDate
        self.lastError = lastError
    }
}

/// What an attempt to sync did: a push, a pull, or both (`sync()`).
enum SyncAttempt: Hashable, Sendable {
    case push, pull, sync
}

/// A client's status and those who follow it: each change goes to every subscriber once, in
/// order, as it is made.
final class SyncStatusCenter: Sendable {
    private struct State {
        var status = SyncStatus()
        /// How many exchanges are under way.
        var exchanges = 0
        /// The failures of pushes and pulls whose last attempt failed.
        var failures: [SyncAttempt: SyncError] = [:]
        var subscribers: [UInt64: AsyncStream<SyncStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    private let state = Mutex(State())

    var status: SyncStatus { state.withLock { $0.status } }

    /// Changes the status; subscribers hear of it if it changed.
    func update(_ change: (inout SyncStatus) -> Void) {
        state.withLock { state in
            var status = state.status
            change(&status)
            Self.publish(status, in: &state)
        }
    }

    /// An exchange starts: the status says it is syncing, and what it has to push.
    func beginExchange(pending: Int?) {
        state.withLock { state in
            state.exchanges += 1
            var status = state.status
            status.isSyncing = true
            if let pending { status.pendingChanges = pending }
            Self.publish(status, in: &state)
        }
    }

    /// How an exchange ended.
    enum Outcome {
        case succeeded
        case failed(SyncError)
        /// Cancelled: it says nothing of the server.
        case cancelled
    }

    /// An exchange ended: with `change` applied in the same update as the end of syncing, and
    /// its outcome.
    func endExchange(_ attempt: SyncAttempt, _ outcome: Outcome, _ change: (inout SyncStatus) -> Void) {
        state.withLock { state in
            state.exchanges -= 1
            var status = state.status
            change(&status)
            status.isSyncing = state.exchanges > 0
            switch outcome {
            case .succeeded: Self.record(attempt, nil, in: &state, status: &status)
            case .failed(let error): Self.record(attempt, error, in: &state, status: &status)
            case .cancelled: break
            }
            Self.publish(status, in: &state)
        }
    }

    /// An attempt outside an exchange failed (a waiting pull's request).
    func fail(_ attempt: SyncAttempt, _ error: SyncError) {
        state.withLock { state in
            var status = state.status
            Self.record(attempt, error, in: &state, status: &status)
            Self.publish(status, in: &state)
        }
    }

    /// Records an attempt's outcome: its failure, or nil for a success, which clears what its
    /// kind failed with and leaves the other kind's failure.
    private static func record(_ attempt: SyncAttempt, _ failure: SyncError?, in state: inout State, status: inout SyncStatus) {
        if let failure {
            // A failed `sync()` may have failed in either part: it stands until each succeeds.
            for kind in attempt == .sync ? [.push, .pull] : [attempt] { state.failures[kind] = failure }
            status.lastError = failure
            return
        }
        switch attempt {
        case .push, .pull: state.failures[attempt] = nil
        case .sync: state.failures = [:]
        }
        // What still fails: the other kind's error, if it still stands.
        if status.lastError == nil || !state.failures.values.contains(status.lastError!) {
            status.lastError = state.failures[.push] ?? state.failures[.pull]
        }
    }

    /// Yields while the lock is held, so that subscribers see changes in the order they were made.
    private static func publish(_ status: SyncStatus, in state: inout State) {
        guard status != state.status else { return }
        state.status = status
        for subscriber in state.subscribers.values { subscriber.yield(status) }
    }

    /// A stream of the current status, then each change.
    func updates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            state.nextSubscriber += 1
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        state.withLock { state in
            continuation.yield(state.status)
            state.subscribers[id] = continuation
        }
        return stream
    }

    deinit {
        for subscriber in state.withLock({ $0.subscribers.values }) { subscriber.finish() }
    }
}

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
    /// meanwhile.
    public var lastError: SyncError?

    public init(isSyncing: Bool = false, pendingChanges: Int = 0, lastSyncDate: Date? = nil, lastError: SyncError? = nil) {
        self.isSyncing = isSyncing
        self.pendingChanges = pendingChanges
        self.lastSyncDate = lastSyncDate
        self.lastError = lastError
    }
}

/// A client's status and those who follow it: each change goes to every subscriber once, in
/// order, as it is made.
final class SyncStatusCenter: Sendable {
    private struct State {
        var status = SyncStatus()
        /// How many exchanges are under way.
        var exchanges = 0
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

    /// An exchange ended: with `change` applied in the same update as the end of syncing.
    func endExchange(_ change: (inout SyncStatus) -> Void) {
        state.withLock { state in
            state.exchanges -= 1
            var status = state.status
            change(&status)
            status.isSyncing = state.exchanges > 0
            Self.publish(status, in: &state)
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

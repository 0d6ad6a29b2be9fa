import ModelKit
import Synchronization

/// What a waiting pull waits on: a count of the commits to a store, by any context of the
/// process, other processes on a SQLite file and other instances on a PostgreSQL database (the
/// store's change feed), and the pulls suspended until it moves. Waiting holds no thread.
final class CommitSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    private let observation = Mutex<StoreObservation?>(nil)

    init(container: ModelContainer) {
        let observation = container.observeAllCommits { [weak self] _ in self?.signal() }
        self.observation.withLock { $0 = observation }
    }

    deinit {
        observation.withLock { $0?.cancel() }
    }

    /// How many commits were heard: read it before reading the store, and wait after it.
    var generation: UInt64 { state.withLock { $0.generation } }

    private func signal() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a commit after `generation` was heard, at `deadline`, or when the task is
    /// cancelled, whichever comes first.
    func wait(after generation: UInt64, until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            group.addTask { await self.next(after: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    private func next(after generation: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // A cancellation before this point is seen here: the flag is set before the handler runs.
                let now = state.withLock { state in
                    guard state.generation == generation, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

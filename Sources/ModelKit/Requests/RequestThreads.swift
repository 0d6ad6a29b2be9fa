import Foundation
import Synchronization

/// A fixed set of threads that run blocking database work for async callers: as many as the
/// store keeps connections, so that work waiting for a connection waits here, in a queue, rather
/// than on Swift's cooperative threads (two on a 2-core machine), which the rest of the
/// process needs. Threads start on first use and live as long as the container.
final class RequestThreads: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var started = 0
        var idle = 0
    }

    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    /// The most threads the pool starts.
    let limit: Int
    /// The threads' name, as debuggers and `top -H` show it (Linux keeps 15 characters).
    static let threadName = "modelkit-perfm"

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// How many jobs wait for a thread.
    var queued: Int { state.withLock { $0.jobs.count } }

    /// Runs `job` on one of the threads, starting one if all are busy and fewer than the limit run.
    func run(_ job: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard state.idle == 0, state.started < limit else { return false }
            state.started += 1
            return true
        }
        if startThread {
            Thread.detachNewThread { [self] in
                Thread.current.name = Self.threadName
                work()
            }
        } else {
            ready.signal()
        }
    }

    private func work() {
        while true {
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                if state.jobs.isEmpty {
                    state.idle += 1
                    return nil
                }
                return state.jobs.removeFirst()
            }
            if let job {
                job()
                continue
            }
            ready.wait()
            state.withLock { $0.idle -= 1 }
        }
    }
}

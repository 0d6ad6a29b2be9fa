import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed set of threads that run blocking database work for async callers: as many as the
/// store keeps connections, so that work waiting for a connection waits here, in a queue, rather
/// than on Swift's cooperative threads (two on a 2-core machine), which the rest of the
/// process needs. Threads start on first use and end with the container (``stop()``). As a
/// `TaskExecutor` (below), they also run the tasks that prefer them, between their blocking jobs.
final class RequestThreads: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var started = 0
        var idle = 0
        var isStopping = false
    }

    private enum Next {
        case run(@Sendable () -> Void)
        case wait
        case end
    }

    private let state = PosixMutex(State())
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

    /// Ends every thread once the queue is empty. The container calls it as it goes away: a
    /// queued `perform` holds the container, so none is left by then. A task that still prefers
    /// the threads as its executor after that runs all the same, each of its jobs on a thread
    /// started for it that ends when the queue is empty.
    func stop() {
        let threads = state.withLock { state in
            state.isStopping = true
            return state.started
        }
        for _ in 0..<threads { ready.signal() }
    }

    #if canImport(Glibc) || canImport(Musl) || canImport(Android) || canImport(Darwin)
    /// Whether the calling thread is one of these threads. (The key holds the pool's address,
    /// which each of its threads keeps alive.)
    var isCurrent: Bool {
        pthread_getspecific(Self.currentKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Holds, on each thread of a pool, the pool it belongs to.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    private func markCurrent() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
    }
    #else
    /// Without POSIX threads' keys, no thread counts as one of these: `perform` always hops.
    var isCurrent: Bool { false }
    private func markCurrent() {}
    #endif

    private func work() {
        markCurrent()
        while true {
            let next = state.withLock { state -> Next in
                if !state.jobs.isEmpty { return .run(state.jobs.removeFirst()) }
                if state.isStopping {
                    state.started -= 1
                    return .end
                }
                state.idle += 1
                return .wait
            }
            switch next {
            case .run(let job):
                job()
            case .wait:
                ready.wait()
                state.withLock { $0.idle -= 1 }
            case .end:
                return
            }
        }
    }
}

/// The threads as an executor that tasks may prefer (``ModelContainer/requestExecutor``): a task
/// that runs on them calls ``ModelContainer/perform(_:)`` without a hop to another thread.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension RequestThreads: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        run { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Lets the threads of a process post contexts' save notifications one at a time, on Linux.
///
/// Foundation's `NotificationCenter` takes a Synchronization `Mutex` on every post, and on Linux
/// that mutex spins 1,000 `pause`s before it sleeps, then hands the lock to its waiters in turn,
/// running or not. With more threads saving than cores, a post queues behind holders that are
/// not running: with 16 requests saving at once on two cores, the two posts of a save took 40 of
/// a PostgreSQL write's 130 µs of client CPU. Waiting at this gate, a mutex whose waiters sleep,
/// keeps the posting threads out of that one.
///
/// The gate is held while observers run, as `post` runs them. A thread that posts again from an
/// observer goes through (the mutex is recursive), and a thread that has waited ``patience``
/// (for an observer that waits on another saving thread, or takes long) posts without the gate:
/// no observer can deadlock a save, and a slow one delays each post of the others (two a save)
/// by `patience` at most. On Apple platforms, whose `NotificationCenter` does not spin, posts go
/// straight through.
final class NotificationGate: Sendable {
    static let shared = NotificationGate()

    /// The longest a post waits at the gate.
    static let patience = Duration.milliseconds(1)

    #if canImport(Glibc) || canImport(Musl) || canImport(Android)
    // Sendable: a pointer to a mutex that lives as long as the process.
    private nonisolated(unsafe) let mutex: UnsafeMutablePointer<pthread_mutex_t>

    private init() {
        mutex = makePthreadMutex(type: Int32(PTHREAD_MUTEX_RECURSIVE))
    }

    /// Posts `name` to `NotificationCenter.default`, through the gate; returns whether it went
    /// through it (false after waiting ``patience``).
    @discardableResult
    func post(name: Notification.Name, object: Any?, userInfo: [AnyHashable: Any]? = nil) -> Bool {
        let entered = pthread_mutex_trylock(mutex) == 0 || waitForTurn()
        defer { if entered { pthread_mutex_unlock(mutex) } }
        NotificationCenter.default.post(name: name, object: object, userInfo: userInfo)
        return entered
    }

    /// Waits for the gate until ``patience`` has passed; whether the gate is this thread's. (The
    /// deadline is on the wall clock, the only one `pthread_mutex_timedlock` takes: a clock
    /// change makes one wait shorter or longer.)
    private func waitForTurn() -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = Self.patience.components
        deadline.tv_sec += Int(seconds)
        deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return pthread_mutex_timedlock(mutex, &deadline) == 0
    }
    #else
    private init() {}

    /// Posts `name` to `NotificationCenter.default`; returns true.
    @discardableResult
    func post(name: Notification.Name, object: Any?, userInfo: [AnyHashable: Any]? = nil) -> Bool {
        NotificationCenter.default.post(name: name, object: object, userInfo: userInfo)
        return true
    }
    #endif
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock whose waiters sleep at once: a `pthread_mutex_t`, for the locks that the requests of a
/// process meet all at once (the request threads' queue, a store's inboxes and announcements).
///
/// Synchronization's `Mutex` is a priority-inheriting futex on Linux: a waiter spins 1,000
/// `pause`s (tens of microseconds) before it asks the kernel, which then hands the lock to the
/// waiters in turn. With more threads than cores, the spin takes the time the holder needs to
/// finish: on two cores, with 16 requests at once, it was a fifth of a PostgreSQL write's client
/// CPU. A POSIX mutex costs a call more when nobody waits; where a lock is seldom contended,
/// `Mutex` stays.
package final class PosixMutex<Value>: @unchecked Sendable {
    // Unchecked: `value` is read and written only while `mutex` is held; what goes in and comes
    // out is `sending`, as with `Mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#else
import Synchronization
#endif

/// A lock whose waiters sleep at once: a `pthread_mutex_t`, for the locks that the requests of a
/// process meet all at once (the request threads' queue, a store's inboxes and announcements).
///
/// Synchronization's `Mutex` is a priority-inheriting futex on Linux: a waiter spins 1,000
/// `pause`s (tens of microseconds) before it asks the kernel, which then hands the lock to the
/// waiters in turn. With more threads than cores, the spin takes the time the holder needs to
/// finish: on two cores, with 16 requests at once, it was a fifth of a PostgreSQL write's client
/// CPU. A POSIX mutex costs a call more when nobody waits, and does not hand the lock over in
/// turn: a thread that releases it and takes it again at once can keep a waiter out. So it is for
/// short holds that many threads meet; a lock held across I/O or taken in a loop (the store
/// registry, held while a store connects) stays `Mutex`, as do locks seldom contended. As with
/// `Mutex`, a thread that takes the lock it holds stops the process rather than waiting for
/// itself (the mutex checks its owner). Without POSIX threads, it is a `Mutex`.
package final class PosixMutex<Value>: @unchecked Sendable {
    // Unchecked: `value` is read and written only while the lock is held; what goes in and
    // comes out is `sending`, as with `Mutex`.
    #if canImport(Glibc) || canImport(Musl) || canImport(Android) || canImport(Darwin)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ initialValue: consuming sending Value) {
        mutex = makePthreadMutex(type: Int32(PTHREAD_MUTEX_ERRORCHECK))
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "PosixMutex: the lock was taken by the thread that holds it (\(status))")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
    #else
    private let mutex: Mutex<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
    #endif
}

#if canImport(Glibc) || canImport(Musl) || canImport(Android) || canImport(Darwin)
/// A new `pthread_mutex_t` of `type` (`PTHREAD_MUTEX_ERRORCHECK`, `PTHREAD_MUTEX_RECURSIVE`), at
/// an address of its own: a mutex must not move once it is initialized.
func makePthreadMutex(type: Int32) -> UnsafeMutablePointer<pthread_mutex_t> {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, type)
    let status = pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    precondition(status == 0, "pthread_mutex_init failed: \(status)")
    return mutex
}
#endif

import Foundation

/// A first-come, first-served lock: the writers of one store take turns in the order they asked,
/// so a context saving on the main thread waits for one save at most, never for a run of them.
final class WriterLock: @unchecked Sendable {
    private let condition = NSCondition()
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0

    /// Waits for this caller's turn.
    func lock() {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        while serving != ticket { condition.wait() }
        condition.unlock()
    }

    /// Takes the lock if nobody holds it or waits for it; never waits.
    func tryLock() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard nextTicket == serving else { return false }
        nextTicket += 1
        return true
    }

    /// Hands the lock to the next caller in line.
    func unlock() {
        condition.lock()
        serving += 1
        condition.broadcast()
        condition.unlock()
    }
}

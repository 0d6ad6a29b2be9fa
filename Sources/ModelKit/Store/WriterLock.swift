import Foundation

/// A first-come, first-served lock around `State`: the writers of one store take turns in the
/// order they asked, so a context saving on the main thread waits for one save at most, never for
/// a run of them. The state is reachable only in a turn, so what the lock guards is checked by
/// the compiler, not by comments.
final class WriterLock<State>: @unchecked Sendable {
    // Unchecked: `state` is read and written only between `lock()` and `unlock()`.
    private let condition = NSCondition()
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0
    private var state: State

    init(_ state: State) { self.state = state }

    /// Runs `body` with the state once it is this caller's turn.
    func withTurn<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body(&state)
    }

    /// Runs `body` with the state if nobody holds the lock or waits for it; nil, without
    /// waiting, otherwise.
    func withTurnIfFree<R>(_ body: (inout State) throws -> R) rethrows -> R? {
        guard tryLock() else { return nil }
        defer { unlock() }
        return try body(&state)
    }

    private func lock() {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        while serving != ticket { condition.wait() }
        condition.unlock()
    }

    private func tryLock() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard nextTicket == serving else { return false }
        nextTicket += 1
        return true
    }

    private func unlock() {
        condition.lock()
        serving += 1
        condition.broadcast()
        condition.unlock()
    }
}

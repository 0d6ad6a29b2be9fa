import Foundation

/// The connections a process writes a driver's database through: up to ``limit``, opened as
/// concurrent saves need them and kept, so that saves of one process run at once, as the
/// database's row locks allow. Callers get a connection first come, first served.
///
/// SQLite has no pool: it takes one writer at a time, and ``WriterLock`` queues its saves.
final class WriterPool: @unchecked Sendable {
    // Sendable by its lock: every field is read and written with `condition` held. A connection
    // is used by one caller at a time, between taking it and giving it back.
    private let condition = NSCondition()
    private var idle: [Connection]
    private var opened: Int
    private var nextTicket: UInt64 = 0
    private var serving: UInt64 = 0
    /// The most connections the pool opens.
    let limit: Int
    private let connect: () throws -> Connection

    /// A pool that starts with `first` and opens more with `connect`, up to `limit` in all.
    init(first: Connection, limit: Int, connect: @escaping () throws -> Connection) {
        idle = [first]
        opened = 1
        self.limit = max(1, limit)
        self.connect = connect
    }

    /// Runs `body` with a connection no other caller uses, waiting for one if all are busy.
    func withConnection<R>(_ body: (Connection) throws -> R) throws -> R {
        let connection = try take()
        defer { giveBack(connection) }
        return try body(connection)
    }

    private func take() throws -> Connection {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        while serving != ticket || (idle.isEmpty && opened == limit) { condition.wait() }
        serving += 1
        if let connection = idle.popLast() {
            condition.broadcast()
            condition.unlock()
            return connection
        }
        // Opened outside the lock: connecting takes a round trip or more.
        opened += 1
        condition.broadcast()
        condition.unlock()
        do {
            return try connect()
        } catch {
            condition.lock()
            opened -= 1
            condition.broadcast()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ connection: Connection) {
        condition.lock()
        idle.append(connection)
        condition.broadcast()
        condition.unlock()
    }
}

import Foundation
import Synchronization

/// How a process reaches one store, shared by every container and context on it: one serialized
/// writer that all saves go through in turn, pooled reader connections, and the fan-out of what
/// each commit changed to every other context.
///
/// Contexts of one process never meet in SQLite's file lock: they queue for the writer, first come
/// first served. Other processes are met with SQLite's busy timeout. In WAL mode readers never wait
/// for the writer. Commits by other processes are noticed through the writer's
/// `PRAGMA data_version`, which changes only when another connection commits (within the process,
/// only the writer ever writes).
final class StoreAccess: @unchecked Sendable {
    /// The path or `file:` URI connections open.
    let path: String
    let isInMemory: Bool
    /// Bumped by every commit a context of the process makes, and by every commit of another
    /// process noticed. A context that has merged up to the current generation is fresh.
    let generation = Atomic<UInt64>(0)

    private let lock = WriterLock()
    /// The only connection of the process that writes. Guarded by `lock`.
    private let writer: Connection
    /// The writer's last `data_version`. Guarded by `lock`.
    private var writerDataVersion: Int64
    private let idle = Mutex<[IdleConnection]>([])
    private let inboxes = Mutex<[ObjectIdentifier: WeakInbox]>([:])

    private static let registry = Mutex<[String: WeakAccess]>([:])

    /// The access layer of the store at `path`: the process's existing one, or a new one.
    /// - Throws: ``SQLiteError`` when the store cannot be opened.
    static func open(path: String, isInMemory: Bool) throws -> StoreAccess {
        try registry.withLock { registry in
            if let existing = registry[path]?.access { return existing }
            let access = try StoreAccess(path: path, isInMemory: isInMemory)
            registry[path] = WeakAccess(access: access)
            return access
        }
    }

    private init(path: String, isInMemory: Bool) throws {
        self.path = path
        self.isInMemory = isInMemory
        writer = try Self.connect(path, isInMemory: isInMemory)
        writerDataVersion = try writer.dataVersion()
    }

    deinit {
        let path = path
        Self.registry.withLock { registry in
            if registry[path]?.access == nil { registry[path] = nil }
        }
    }

    /// Opens a connection with the settings every connection to the store gets.
    private static func connect(_ path: String, isInMemory: Bool) throws -> Connection {
        let connection = try Connection(path: path)
        if !isInMemory { try connection.execute("PRAGMA synchronous = NORMAL") }
        return connection
    }

    // MARK: Writing

    /// Runs `body` with the writer connection once it is this caller's turn. Commits by other
    /// processes since the last write are published first, so contexts learn of them.
    /// - Parameter trace: receives each statement `body` runs, for the context's statement trace.
    func write<R>(trace: ((String) -> Void)?, _ body: (Connection) throws -> R) throws -> R {
        lock.lock()
        defer { lock.unlock() }
        writer.trace = trace
        defer { writer.trace = nil }
        try publishExternalCommits()
        return try body(writer)
    }

    /// Checks for commits by other processes, unless the writer is busy (then the write in
    /// progress checks). Returns whether it checked.
    func noticeExternalCommits() -> Bool {
        guard !isInMemory else { return true }
        guard lock.tryLock() else { return false }
        defer { lock.unlock() }
        do {
            try publishExternalCommits()
            return true
        } catch {
            return false
        }
    }

    /// Publishes an external change if the writer's data version moved. Call with the lock held.
    private func publishExternalCommits() throws {
        guard !isInMemory else { return }
        let version = try writer.dataVersion()
        guard version != writerDataVersion else { return }
        writerDataVersion = version
        publish(.external, from: nil)
    }

    // MARK: Reading

    /// A reader connection for a context: an idle one if there is one, else a new one.
    func reader() throws -> Connection {
        if let idle = idle.withLock({ $0.popLast() }) { return idle.connection }
        return try Self.connect(path, isInMemory: isInMemory)
    }

    /// Takes back a context's reader, keeping a few for the next contexts.
    func checkIn(_ connection: Connection) {
        connection.trace = nil
        idle.withLock { idle in
            if idle.count < 4 { idle.append(IdleConnection(connection: connection)) }
        }
    }

    // MARK: Change fan-out

    /// Starts delivering other contexts' changes to `inbox`.
    func subscribe(_ inbox: ChangeInbox) {
        inboxes.withLock { $0[ObjectIdentifier(inbox)] = WeakInbox(inbox: inbox) }
    }

    func unsubscribe(_ inbox: ChangeInbox) {
        _ = inboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(inbox)) }
    }

    /// Delivers `change` to every subscribed inbox but `source`'s, and bumps the generation.
    func publish(_ change: StoreChange, from source: ChangeInbox?) {
        generation.add(1, ordering: .sequentiallyConsistent)
        let targets = inboxes.withLock { inboxes in inboxes.values.compactMap(\.inbox).filter { $0 !== source } }
        for inbox in targets { inbox.deliver(change) }
    }
}

/// A connection no context is using. Connections are not thread-safe, but an idle one is touched
/// by nobody until a context checks it out, so it may cross threads in between.
private struct IdleConnection: @unchecked Sendable {
    let connection: Connection
}

private struct WeakInbox: Sendable {
    weak var inbox: ChangeInbox?
}

private struct WeakAccess: @unchecked Sendable {
    weak var access: StoreAccess?
}

import Foundation
import Synchronization

/// How a process reaches one store, shared by every container and context on it: the writer,
/// pooled reader connections, and the fan-out of what each commit changed to every other context.
///
/// On SQLite, one serialized writer: contexts of one process never meet in SQLite's file lock,
/// they queue for the writer, first come first served, and other processes are met with SQLite's
/// busy timeout. In WAL mode readers never wait for the writer. Commits by other processes are
/// noticed through the writer's `PRAGMA data_version`, which changes only when another
/// connection commits (within the process, only the writer ever writes).
///
/// On a driver's database (PostgreSQL), contexts save through their own connections (see
/// ``Store/savesOnContextConnections``), at once, as the database's row locks allow; the writer
/// serves the store's own writes (migration, history deletes). Other instances' commits are
/// heard as announcements (``listen(on:)``).
final class StoreAccess: @unchecked Sendable {
    /// The path or `file:` URI connections open; for a driver's database, its location.
    let path: String
    let isInMemory: Bool
    /// The database's backend.
    let driver: any DatabaseDriver
    /// The SQL the store speaks.
    var dialect: SQLDialect { driver.dialect }
    /// Whether other processes' commits are found by asking the writer (SQLite's `data_version`):
    /// on a SQLite file. (An in-memory store has no other process; a driver's database announces
    /// commits, heard with ``listen(on:)``.)
    let noticesOtherProcesses: Bool
    /// Identifies this process's access in the announcements other instances hear.
    let instance = UUID().uuidString
    /// Delivers other instances' announcements, and sends this process's, for a driver's
    /// database: set with ``listen(on:)``.
    private let listening = PosixMutex<(any DriverListener)?>(nil)
    /// Bumped by every commit a context of the process makes, and by every commit of another
    /// process noticed. A context that has merged up to the current generation is fresh.
    let generation = Atomic<UInt64>(0)

    /// The writer and what it knows, reachable in its turn only.
    private let turns: WriterLock<WriterTurn>

    /// What the writer's turn holds: on SQLite, the only connection of the process that writes,
    /// and what it knows of other processes' commits.
    struct WriterTurn {
        let writer: Connection
        /// The writer's last `data_version`.
        fileprivate var dataVersion: Int64?
        /// The newest history token whose changes the process's contexts know of, once the
        /// store's history is followed (``followHistory(in:)``): commits by other processes after
        /// it are read from the history. Nil while it is not.
        fileprivate var knownHistoryToken: Int64?
        /// The writer's file data version (``Connection/changeCounter``) just after the process's
        /// last save through it; nil until one. A save that finds it unchanged once it holds the
        /// write lock knows that nothing else committed since (see
        /// ``StoreAccess/publishExternalCommitsWhileLocked(_:)``), and that what the last save
        /// noted below holds.
        var versionAfterOwnSave: UInt32?
        /// The next keys the writer's last save left (see ``RowKeyDispenser``).
        var keys: RowKeyDispenser.Handover?
        /// The newest history token as of ``versionAfterOwnSave``: the last one a save of the
        /// process recorded through the writer, since the last time another connection's commit
        /// was found. Nil until one.
        var tokenAfterOwnSave: Int64?
    }
    /// How many watches want other processes' commits noticed without waiting for a read, and
    /// the timer that checks while there are any.
    private let watches = Mutex<(count: Int, timer: DispatchSourceTimer?)>((0, nil))
    private let idle = PosixMutex<[IdleConnection]>([])
    /// What the process's contexts commit, for each to read (see ``ChangeLog``).
    let changes = ChangeLog()
    /// Every inbox reading ``changes``: what the log may let go of is what they all read.
    private let inboxes = PosixMutex<[ObjectIdentifier: WeakInbox]>([:])
    /// The inboxes told of each change as it is published.
    private let toldInboxes = PosixMutex<[ObjectIdentifier: WeakInbox]>([:])
    /// Paces this process's announcements to other instances (see ``AnnouncementPacer``).
    private let announcements = PosixMutex(AnnouncementPacer(interval: StoreAccess.announcementInterval))
    /// The least time between two announcements of the process: another instance hears a commit
    /// at most this late (and a round trip), and a busy instance costs the server 20
    /// announcements a second.
    static let announcementInterval = Duration.milliseconds(50)

    private static let registry = Mutex<[String: WeakAccess]>([:])

    /// The access layer of `driver`'s database: the process's existing one, or a new one.
    /// - Throws: the database's error when it cannot be opened or reached.
    static func open(driver: any DatabaseDriver) throws -> StoreAccess {
        try open(key: driver.location) { try StoreAccess(driver: driver) }
    }

    private static func open(key: String, _ make: () throws -> StoreAccess) throws -> StoreAccess {
        try registry.withLock { registry in
            if let existing = registry[key]?.access { return existing }
            let access = try make()
            registry[key] = WeakAccess(access: access)
            return access
        }
    }

    private init(driver: any DatabaseDriver) throws {
        path = driver.location
        isInMemory = driver.isInMemory
        self.driver = driver
        let writer = try Self.connect(driver)
        let dataVersion = try writer.externalCommitCount()
        turns = WriterLock(WriterTurn(writer: writer, dataVersion: dataVersion))
        noticesOtherProcesses = !isInMemory && dataVersion != nil
    }

    deinit {
        watches.withLock { $0.timer?.cancel() }
        let path = path
        // A newer access of the same path, if its last reference is this one, goes away once the
        // lock is released: its deinit takes the lock too.
        let newer = Self.registry.withLock { registry -> StoreAccess? in
            let newer = registry[path]?.access
            if newer == nil { registry[path] = nil }
            return newer
        }
        withExtendedLifetime(newer) {}
    }

    /// Opens a connection with the settings every connection to the store gets.
    private static func connect(_ driver: any DatabaseDriver) throws -> Connection {
        Connection(try driver.connect(), dialect: driver.dialect)
    }

    // MARK: Writing

    /// Runs `body` in the writer's turn, once it is this caller's. On SQLite, commits by other
    /// processes since the last write are published first, so contexts learn of them, unless
    /// `body` does that itself once it holds the write lock (`noticingFirst: false`, a save:
    /// see ``publishExternalCommitsWhileLocked(_:)``).
    /// - Parameter trace: receives each statement `body` runs, for the context's statement trace.
    func write<R>(trace: ((String) -> Void)?, noticingFirst: Bool = true, _ body: (inout WriterTurn) throws -> R) throws -> R {
        try turns.withTurn { turn in
            turn.writer.trace = trace
            defer { turn.writer.trace = nil }
            if noticingFirst { try publishExternalCommits(&turn) }
            return try body(&turn)
        }
    }

    /// For a save whose transaction holds the write lock: publishes what other connections
    /// committed since the writer's last check, as ``publishExternalCommits(_:)`` does, unless the
    /// writer's file data version is the one the process's last save left: nothing else committed
    /// since, and one C call tells it, where `PRAGMA data_version` is a statement (about 2,900
    /// instructions a save). The version is as of the transaction's start, which holds the lock,
    /// so no commit can come between the look and the save's own. Returns whether nothing but
    /// the process's own saves committed since the last of them: its notes on the writer's state
    /// (the next keys, the newest history token) hold. In memory, where no other process can
    /// commit, only the answer is wanted.
    func publishExternalCommitsWhileLocked(_ turn: inout WriterTurn) throws -> Bool {
        if let own = turn.versionAfterOwnSave, own == turn.writer.changeCounter { return true }
        // The newest token may be another program's now, and a commit of this process that
        // records no history (a batch delete that matched nothing) would keep it unknown.
        turn.tokenAfterOwnSave = nil
        if noticesOtherProcesses { try publishExternalCommits(&turn) }
        return false
    }

    /// Checks for commits by other processes, unless the writer is busy (then the write in
    /// progress checks). Returns whether it checked.
    func noticeExternalCommits() -> Bool {
        guard noticesOtherProcesses else { return true }
        return turns.withTurnIfFree { turn in (try? publishExternalCommits(&turn)) != nil } ?? false
    }

    /// Publishes what other processes committed if the writer's data version moved: the rows
    /// their history records, or, when it cannot say, a change of unknown rows.
    func publishExternalCommits(_ turn: inout WriterTurn) throws {
        guard noticesOtherProcesses else { return }
        let version = try turn.writer.externalCommitCount()
        guard version != turn.dataVersion else { return }
        turn.dataVersion = version
        if let known = turn.knownHistoryToken, let (change, newest) = try HistoryTable.changes(after: known, in: turn.writer) {
            turn.knownHistoryToken = newest
            if !change.isEmpty { publish(change, from: nil) }
        } else {
            if turn.knownHistoryToken != nil { turn.knownHistoryToken = try HistoryTable.newestToken(in: turn.writer) }
            publish(.external, from: nil)
        }
    }

    // MARK: History

    /// Starts following the store's history, from its newest transaction, once the history
    /// table exists.
    func followHistory(in turn: inout WriterTurn) throws {
        turn.knownHistoryToken = try HistoryTable.newestToken(in: turn.writer)
    }

    /// Notes a transaction the process just committed, so that its history reads can wait for
    /// it to settle and, when it committed in the writer's `turn`, other processes' commits are
    /// read from after it. If another process committed just before it, the known token stays,
    /// and both are read on the next check.
    func noteCommittedTransaction(_ token: Int64, in turn: inout WriterTurn?) {
        newestCommittedToken.max(token, ordering: .relaxed)
        guard noticesOtherProcesses, let known = turn?.knownHistoryToken, token == known + 1 else { return }
        turn?.knownHistoryToken = token
    }

    /// The newest history token of a transaction the process committed, so that its history
    /// reads can wait for it to settle (see ``StoreReader/settledHistoryBound(through:)``).
    let newestCommittedToken = Atomic<Int64>(0)

    // MARK: Watching

    /// How often a watched store checks for other processes' commits.
    static let watchInterval = DispatchTimeInterval.milliseconds(250)

    /// Checks for other processes' commits every ``watchInterval`` until the matching
    /// ``stopWatching()``, so that contexts and observers hear of them without reading first.
    func startWatching() {
        guard noticesOtherProcesses else { return }
        watches.withLock { watches in
            watches.count += 1
            guard watches.timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.schedule(deadline: .now() + Self.watchInterval, repeating: Self.watchInterval, leeway: .milliseconds(50))
            timer.setEventHandler { [weak self] in _ = self?.noticeExternalCommits() }
            timer.resume()
            watches.timer = timer
        }
    }

    func stopWatching() {
        guard noticesOtherProcesses else { return }
        watches.withLock { watches in
            watches.count -= 1
            guard watches.count == 0 else { return }
            watches.timer?.cancel()
            watches.timer = nil
        }
    }

    // MARK: Reading

    /// A reader connection for a context: an idle one if there is one, else a new one.
    func reader() throws -> Connection {
        if let idle = idle.withLock({ $0.popLast() }) { return idle.connection }
        return try Self.connect(driver)
    }

    /// Takes back a context's reader, keeping a few for the next contexts.
    func checkIn(_ connection: Connection) {
        connection.trace = nil
        idle.withLock { idle in
            guard idle.count < driver.pooledConnections else { return }
            idle.append(IdleConnection(connection: connection))
        }
    }

    // MARK: Other instances (drivers)

    /// Starts hearing what other instances commit to the database, announced on `channel`: each
    /// announcement is published to the process's contexts as a change. Call once the store's
    /// identifier is known.
    func listen(on channel: String) throws {
        try listening.withLock { listening in
            guard listening == nil else { return }
            let instance = instance
            let listener = try driver.listen(on: channel) { [weak self] payload in
                guard let self, let change = StoreChange(announcement: payload, ignoring: instance) else { return }
                publish(change, from: nil)
            }
            if let listener { listening = listener }
        }
    }

    /// Tells other instances, through the listener's connection, of `change`, which a commit of
    /// this process made: at once after a quiet spell, else with the next paced announcement
    /// (see ``AnnouncementPacer``). Only drivers' databases announce. A failed announcement is
    /// dropped, as a failed `NOTIFY` after a `COMMIT` is: the data is saved.
    func announce(_ change: StoreChange) {
        guard !change.isEmpty, listening.withLock({ $0 != nil }) else { return }
        guard let due = announcements.withLock({ $0.add(change, now: .now) }) else { return }
        let wait = ContinuousClock.now.duration(to: due)
        guard wait > .zero else { return sendAnnouncement() }
        let (seconds, attoseconds) = wait.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { self.sendAnnouncement() }
    }

    /// Sends every change the pacer holds, in one announcement.
    private func sendAnnouncement() {
        let change = announcements.withLock { $0.take(now: .now) }
        guard !change.isEmpty, let listener = listening.withLock({ $0 }) else { return }
        listener.announce(change.announcement(from: instance))
    }

    // MARK: Change fan-out

    /// A new reader of what the process's other contexts commit from now on; `onChange` is called
    /// after each commit (see ``ChangeInbox/onChange``). An inbox that is only told, never read
    /// (`reads: false`), does not keep the log's entries.
    func subscribe(reads: Bool = true, onChange: (@Sendable () -> Void)? = nil) -> ChangeInbox {
        let inbox =
            reads
            ? inboxes.withLock { inboxes in
                // Made under the lock the trim reads positions under, so that no trim lets go
                // of what it has yet to read.
                let inbox = ChangeInbox(log: changes, onChange: onChange)
                inboxes[ObjectIdentifier(inbox)] = WeakInbox(inbox: inbox)
                return inbox
            } : ChangeInbox(log: changes, onChange: onChange)
        if onChange != nil { toldInboxes.withLock { $0[ObjectIdentifier(inbox)] = WeakInbox(inbox: inbox) } }
        return inbox
    }

    func unsubscribe(_ inbox: ChangeInbox) {
        _ = inboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(inbox)) }
        if inbox.onChange != nil { _ = toldInboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(inbox)) } }
    }

    /// Appends `change` to the log every context reads (but `source`'s), bumps the generation,
    /// and tells the inboxes that asked. Every context can read the change before any inbox is
    /// told of it, so an observer told of a change finds it in every context's next read.
    func publish(_ change: StoreChange, from source: ChangeInbox?) {
        let shouldTrim = changes.append(change, from: source)
        generation.add(1, ordering: .sequentiallyConsistent)
        if shouldTrim { trimChanges() }
        // Copied (a reference) under the lock and read outside it.
        let told = toldInboxes.withLock { $0 }
        for inbox in told.values.compactMap(\.inbox) where inbox !== source { inbox.onChange?() }
    }

    /// Lets the log go of what every inbox has read.
    private func trimChanges() {
        // The newest sequence is read under the lock too: an inbox made after it starts there.
        let read = inboxes.withLock { inboxes in
            inboxes.values.compactMap { $0.inbox?.position.load(ordering: .acquiring) }.min() ?? changes.latest.load(ordering: .acquiring)
        }
        changes.trim(readUpTo: read)
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

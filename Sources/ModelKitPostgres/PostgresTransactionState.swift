/// Where a connection's transaction stands, and what each step of it sends: decisions as values,
/// which ``PostgresConnection`` carries out with libpq, so that they are tested without a server.
///
/// A transaction's start is held back by ``begin(_:)`` and sent with its first statement (one
/// round trip for both); `NOTIFY`s made inside it wait for the `COMMIT` and follow it in the same
/// round trip, each in a transaction of its own (a `NOTIFY` inside the transaction would hold the
/// server's notification lock until it commits, serialising commits across every instance).
struct PostgresTransactionState {
    enum Phase: Equatable {
        /// No transaction.
        case idle
        /// A transaction's start, not yet sent.
        case held([String])
        /// A transaction whose start was sent and whose end was not.
        case open
    }

    private(set) var phase = Phase.idle
    /// Announcements of the transaction under way, sent after its `COMMIT`.
    private(set) var announcements: [String] = []

    /// Holds the statements of `sql` (joined by `"; "`) until the transaction's first statement.
    mutating func begin(_ sql: String) {
        phase = .held(sql.components(separatedBy: "; "))
        announcements = []
    }

    /// The statements to send ahead of the next one: the held start, once; the transaction is
    /// open from then on.
    mutating func takeOpening() -> [String] {
        guard case .held(let statements) = phase else { return [] }
        phase = .open
        return statements
    }

    /// Whether a statement sent now belongs to a transaction: one held, or one the server says
    /// is under way (`serverInTransaction`, from `PQtransactionStatus`).
    func isInTransaction(serverInTransaction: Bool) -> Bool {
        if case .held = phase { return true }
        return serverInTransaction
    }

    /// What to do with `sql`, an announcement: send it now outside a transaction, or hold it for
    /// the `COMMIT`.
    enum Announce: Equatable {
        case sendNow
        case held
    }

    mutating func announce(_ sql: String, serverInTransaction: Bool) -> Announce {
        guard isInTransaction(serverInTransaction: serverInTransaction) else { return .sendNow }
        announcements.append(sql)
        return .held
    }

    /// The end of a transaction, as one round trip: the held start if nothing was sent yet, the
    /// `COMMIT`, and the announcements. Failures up to and including the `COMMIT` (at
    /// `commitIndex`) fail the commit; failed announcements after it are dropped.
    struct Ending: Equatable {
        /// What runs before the `COMMIT`: the held start.
        var opening: [String]
        /// The `COMMIT` and the announcements after it.
        var trailing: [String]
        /// The index of the `COMMIT` among `opening + trailing`, when no statement goes between.
        var commitIndex: Int { opening.count }
        var statements: [String] { opening + trailing }
    }

    /// Takes what ends the transaction. Call ``ended()`` once the `COMMIT` succeeded; on failure
    /// the transaction stays open until ``rollback(connected:)``.
    mutating func commit() -> Ending {
        let ending = Ending(opening: takeOpening(), trailing: ["COMMIT"] + announcements)
        announcements = []
        return ending
    }

    /// The `COMMIT` succeeded.
    mutating func ended() {
        phase = .idle
    }

    /// What a rollback sends.
    enum Rollback: Equatable {
        /// Nothing: the start was never sent, or the connection dropped (and the server rolled
        /// the transaction back).
        case nothing
        case sendRollback
    }

    mutating func rollback(connected: Bool) -> Rollback {
        defer {
            phase = .idle
            announcements = []
        }
        guard case .open = phase, connected else { return .nothing }
        return .sendRollback
    }

    /// What to do when the next operation finds the connection dropped.
    enum AfterDrop: Equatable {
        /// Reconnect: no transaction was under way.
        case reconnect
        /// Fail: a statement of the transaction on a new connection would run outside it, and
        /// a `COMMIT` there would report success for writes never made. Roll back first.
        case refuse
    }

    var afterDrop: AfterDrop {
        if case .open = phase { return .refuse }
        return .reconnect
    }
}

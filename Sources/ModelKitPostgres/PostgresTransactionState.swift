/// Where a connection's transaction stands, and what each step of it sends: decisions as values,
/// which ``PostgresConnection`` carries out with libpq, so that they are tested without a server.
///
/// A transaction's start is held back by ``begin(_:)`` and sent with its first statement (one
/// round trip for both).
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
    /// The last start split into statements: every save sends the same one, and splitting it
    /// with Foundation cost 3 % of a small save's client time.
    private var lastBegin: (sql: String, statements: [String])?

    /// Holds the statements of `sql` (joined by `"; "`) until the transaction's first statement.
    mutating func begin(_ sql: String) {
        let statements = lastBegin.flatMap { $0.sql == sql ? $0.statements : nil } ?? sql.components(separatedBy: "; ")
        lastBegin = (sql, statements)
        phase = .held(statements)
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

    /// The end of a transaction, as one round trip: the held start if nothing was sent yet, and
    /// the `COMMIT`.
    struct Ending: Equatable {
        /// What runs before the `COMMIT`: the held start.
        var opening: [String]
        /// The `COMMIT`.
        var trailing: [String]
        /// The index of the `COMMIT` among `opening + trailing`, when no statement goes between.
        var commitIndex: Int { opening.count }
        var statements: [String] { opening + trailing }
    }

    /// Takes what ends the transaction. Call ``ended()`` once the `COMMIT` succeeded; on failure
    /// the transaction stays open until ``rollback(connected:)``.
    mutating func commit() -> Ending {
        Ending(opening: takeOpening(), trailing: ["COMMIT"])
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
        defer { phase = .idle }
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

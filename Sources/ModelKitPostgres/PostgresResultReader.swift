/// Reads the results of several commands sent in one round trip (a pipeline, or a query string
/// of several statements): which result the caller keeps, which failure it reports, and whether
/// the round trip completed. A value fed one result at a time by ``PostgresConnection``, so that
/// every way a round trip can end is tested without a server.
struct PostgresResultReader {
    /// The command whose result the caller keeps (a statement's rows, or the `COMMIT`).
    let kept: Int

    /// The first command that failed.
    private(set) var failedCommand: Int?
    private var keptResult = false

    init(kept: Int) {
        self.kept = kept
    }

    /// How one result of a command ended.
    enum Status: Equatable {
        case succeeded
        case failed
        /// Not run, because an earlier command of the pipeline failed.
        case aborted
    }

    /// What to do with a result.
    enum Action: Equatable {
        /// Keep it for the caller.
        case keep
        /// Make the round trip's error from it, then clear it.
        case fail
        /// Clear it.
        case discard
    }

    mutating func read(command index: Int, _ status: Status) -> Action {
        switch status {
        case .succeeded where index == kept && !keptResult && failedCommand == nil:
            keptResult = true
            return .keep
        case .failed where failedCommand == nil:
            failedCommand = index
            return .fail
        default:
            return .discard
        }
    }

    /// How the round trip ended.
    enum Outcome: Equatable {
        /// The kept command's result is the caller's.
        case success
        /// The failure read from ``failedCommand`` is thrown; a kept result is cleared.
        case failed
        /// The results stopped short (the connection dropped), or the pipeline never synced: the
        /// commands after the last result may or may not have run.
        case incomplete
    }

    /// `synced`: the pipeline's sync result arrived (true for a query string, which has none).
    func outcome(synced: Bool) -> Outcome {
        if failedCommand != nil { return .failed }
        return synced && keptResult ? .success : .incomplete
    }
}

import Testing

@testable import ModelKitPostgres

/// What a PostgreSQL connection sends at each step of a transaction, and how it reads a round
/// trip's results, decided without a server.
struct PostgresTransactionStateTests {
    let begin = "BEGIN; SET LOCAL synchronous_commit TO off"

    @Test func aTransactionsStartIsHeldBackAndSentOnceWithItsFirstStatement() {
        var state = PostgresTransactionState()
        state.begin(begin)
        #expect(state.phase == .held(["BEGIN", "SET LOCAL synchronous_commit TO off"]))
        #expect(state.isInTransaction(serverInTransaction: false), "held statements already belong to it")
        #expect(state.takeOpening() == ["BEGIN", "SET LOCAL synchronous_commit TO off"])
        #expect(state.phase == .open)
        #expect(state.takeOpening().isEmpty, "sent once")
    }

    @Test func aTransactionWithNoStatementCommitsItsStartAndCommitInOneRoundTrip() {
        var state = PostgresTransactionState()
        state.begin(begin)
        let ending = state.commit()
        #expect(ending.statements == ["BEGIN", "SET LOCAL synchronous_commit TO off", "COMMIT"])
        #expect(ending.commitIndex == 2)
        state.ended()
        #expect(state.phase == .idle)
    }

    @Test func rollingBackATransactionWhoseStartWasNeverSentSendsNothing() {
        var state = PostgresTransactionState()
        state.begin(begin)
        #expect(state.rollback(connected: true) == .nothing)
        #expect(state.phase == .idle && state.takeOpening().isEmpty)
    }

    @Test func rollingBackAnOpenTransactionSendsRollbackOnlyWhileConnected() {
        var state = PostgresTransactionState()
        state.begin(begin)
        _ = state.takeOpening()
        #expect(state.rollback(connected: true) == .sendRollback)
        state.begin(begin)
        _ = state.takeOpening()
        #expect(state.rollback(connected: false) == .nothing, "the server rolled it back when the connection dropped")
        #expect(state.phase == .idle)
    }

    @Test func aDropInsideATransactionRefusesToReconnectUntilItIsRolledBack() {
        var state = PostgresTransactionState()
        #expect(state.afterDrop == .reconnect)
        state.begin(begin)
        #expect(state.afterDrop == .reconnect, "nothing of it was sent")
        _ = state.takeOpening()
        #expect(state.afterDrop == .refuse)
        // A drop before the COMMIT: the commit fails, the transaction stays open, and still refuses.
        _ = state.commit()
        #expect(state.afterDrop == .refuse)
        _ = state.rollback(connected: false)
        #expect(state.afterDrop == .reconnect)
    }

    @Test func theSameStartIsSplitOnceAndADifferentOneAnew() {
        var state = PostgresTransactionState()
        state.begin(begin)
        #expect(state.takeOpening() == ["BEGIN", "SET LOCAL synchronous_commit TO off"])
        _ = state.rollback(connected: true)
        state.begin("BEGIN")
        #expect(state.phase == .held(["BEGIN"]))
        _ = state.rollback(connected: true)
        state.begin(begin)
        #expect(state.phase == .held(["BEGIN", "SET LOCAL synchronous_commit TO off"]))
    }

    /// A pipeline of a held start (2 commands), a statement and a `COMMIT`: a failure at each
    /// command fails the round trip.
    @Test(arguments: 0..<4)
    func aPipelineFailureAtEachCommandIsReported(failing: Int) {
        let (kept, count) = (2, 4)
        var reader = PostgresResultReader(kept: kept)
        var actions: [PostgresResultReader.Action] = []
        for index in 0..<count {
            let status: PostgresResultReader.Status = index < failing ? .succeeded : index == failing ? .failed : .aborted
            actions.append(reader.read(command: index, status))
        }
        #expect(reader.outcome(synced: true) == .failed)
        #expect(reader.failedCommand == failing)
        #expect(actions[failing] == .fail)
        #expect(actions.filter { $0 == .keep }.count == (failing > kept ? 1 : 0), "a kept result before the failure is cleared by the caller")
    }

    @Test func aRoundTripCutShortOrNeverSyncedIsIncomplete() {
        var reader = PostgresResultReader(kept: 2)
        _ = reader.read(command: 0, .succeeded)
        _ = reader.read(command: 1, .succeeded)
        #expect(reader.outcome(synced: false) == .incomplete, "dropped before the statement's result")
        #expect(reader.read(command: 2, .succeeded) == .keep)
        #expect(reader.outcome(synced: false) == .incomplete, "dropped before the sync: the COMMIT may not have run")
        #expect(reader.outcome(synced: true) == .success)
    }

    @Test func onlyTheFirstResultOfTheKeptCommandIsKept() {
        var reader = PostgresResultReader(kept: 0)
        #expect(reader.read(command: 0, .succeeded) == .keep)
        #expect(reader.read(command: 0, .succeeded) == .discard)
    }
}

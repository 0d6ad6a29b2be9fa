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

    @Test func announcementsInsideATransactionFollowItsCommitAndAreSharedByNoOther() {
        var state = PostgresTransactionState()
        #expect(state.announce("NOTIFY a", serverInTransaction: false) == .sendNow)
        #expect(state.announce("NOTIFY a", serverInTransaction: true) == .held, "inside a transaction begun by hand")
        _ = state.rollback(connected: true)
        state.begin(begin)
        #expect(state.announce("NOTIFY b", serverInTransaction: false) == .held)
        #expect(state.announce("NOTIFY c", serverInTransaction: true) == .held)
        let ending = state.commit()
        #expect(ending.trailing == ["COMMIT", "NOTIFY b", "NOTIFY c"])
        state.ended()
        state.begin(begin)
        #expect(state.commit().trailing == ["COMMIT"], "the last transaction's announcements went with it")
        state.begin(begin)
        _ = state.announce("NOTIFY d", serverInTransaction: true)
        _ = state.rollback(connected: true)
        state.begin(begin)
        #expect(state.commit().trailing == ["COMMIT"], "a rolled-back transaction announces nothing")
    }

    /// A pipeline of a held start (2 commands), a statement and a `COMMIT` with an announcement:
    /// a failure at each command.
    @Test(arguments: 0..<5)
    func aPipelineFailureAtEachCommandIsReportedOnlyUpToTheCommit(failing: Int) {
        let (kept, checked, count) = (2, 4, 5)
        var reader = PostgresResultReader(kept: kept, checked: checked)
        var actions: [PostgresResultReader.Action] = []
        for index in 0..<count {
            let status: PostgresResultReader.Status = index < failing ? .succeeded : index == failing ? .failed : .aborted
            actions.append(reader.read(command: index, status))
        }
        if failing < checked {
            #expect(reader.outcome(synced: true) == .failed)
            #expect(reader.failedCommand == failing)
            #expect(actions[failing] == .fail)
            #expect(actions.filter { $0 == .keep }.count == (failing > kept ? 1 : 0), "a kept result before the failure is cleared by the caller")
        } else {
            #expect(reader.outcome(synced: true) == .success, "an announcement that fails after the COMMIT is dropped")
            #expect(actions[kept] == .keep && actions[failing] == .discard)
        }
    }

    @Test func aRoundTripCutShortOrNeverSyncedIsIncomplete() {
        var reader = PostgresResultReader(kept: 2, checked: 4)
        _ = reader.read(command: 0, .succeeded)
        _ = reader.read(command: 1, .succeeded)
        #expect(reader.outcome(synced: false) == .incomplete, "dropped before the statement's result")
        #expect(reader.read(command: 2, .succeeded) == .keep)
        #expect(reader.outcome(synced: false) == .incomplete, "dropped before the sync: the COMMIT may not have run")
        #expect(reader.outcome(synced: true) == .success)
    }

    @Test func onlyTheFirstResultOfTheKeptCommandIsKept() {
        var reader = PostgresResultReader(kept: 0, checked: 1)
        #expect(reader.read(command: 0, .succeeded) == .keep)
        #expect(reader.read(command: 0, .succeeded) == .discard)
    }
}

import Synchronization

/// Where a context (or an observer) reads the changes other contexts commit to one store: its
/// place in the store's ``ChangeLog``. The context reads, on its own isolation domain, what is
/// new before its next read; a commit writes nothing here.
///
/// A context that does not read for a long time, such as an idle model actor's, may find that
/// the log let go of changes it had not read (past ``ChangeLog/keyLimit`` keys): it then reads
/// one change of unknown rows, and its next read reads its registered models again, as it does
/// after another process's commit.
final class ChangeInbox: Sendable {
    let log: ChangeLog
    /// The sequence number of the last entry read; read by the log when it trims.
    let position: Atomic<UInt64>
    /// Called after a change arrives, from the committing thread. The main context and observers
    /// use it to schedule a merge; a context without one reads before its next read.
    let onChange: (@Sendable () -> Void)?

    init(log: ChangeLog, onChange: (@Sendable () -> Void)? = nil) {
        self.log = log
        self.onChange = onChange
        position = Atomic(log.latest.load(ordering: .acquiring))
    }

    /// Whether changes are waiting; one atomic load and a comparison.
    var hasChanges: Bool { log.latest.load(ordering: .acquiring) > position.load(ordering: .relaxed) }

    /// Takes every waiting change, oldest first, but those this inbox's context committed.
    func drain() -> [StoreChange] {
        guard hasChanges else { return [] }
        let (changes, last) = log.changes(after: position.load(ordering: .relaxed), except: ObjectIdentifier(self))
        position.store(last, ordering: .releasing)
        return changes
    }

    /// The context committed the entry `sequence`: nothing to read of it, and, when nothing came
    /// between, nothing to read at all.
    func wrote(_ sequence: UInt64) {
        if sequence == position.load(ordering: .relaxed) + 1 { position.store(sequence, ordering: .releasing) }
    }
}

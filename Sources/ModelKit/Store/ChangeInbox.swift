import Synchronization

/// Where a context (or an observer) reads the changes other contexts commit to one store: its
/// place in the store's ``ChangeLog``. A context reads what is new before its next read; a commit
/// writes nothing here.
///
/// A context that does not read for a long time, such as an idle model actor's, may find that
/// the log let go of changes it had not read (see ``ChangeLog``): it then reads one change of
/// unknown rows, and its next read reads its registered models again, as it does after another
/// process's commit.
final class ChangeInbox: Sendable {
    let log: ChangeLog
    /// The sequence number of the last entry read; moved under the log's lock, read by trims.
    let position: Atomic<UInt64>
    /// Called after each commit to the store, on the thread that made or heard it (a context's,
    /// the listener's, the watch timer's). The main context and observers use it to schedule a
    /// read; a context without one reads before its next read.
    let onChange: (@Sendable () -> Void)?

    init(log: ChangeLog, onChange: (@Sendable () -> Void)? = nil) {
        self.log = log
        self.onChange = onChange
        position = Atomic(log.latest.load(ordering: .acquiring))
    }

    /// Whether changes are waiting; two atomic loads.
    var hasChanges: Bool { log.latest.load(ordering: .acquiring) > position.load(ordering: .acquiring) }

    /// Takes every waiting change, oldest first, but those this inbox's context committed.
    func drain() -> [StoreChange] {
        hasChanges ? log.take(for: self) : []
    }
}

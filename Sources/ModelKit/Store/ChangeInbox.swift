import Synchronization

/// Where a context receives the changes other contexts commit. The store appends from any thread;
/// the context drains it, on its own isolation domain, before its next read.
///
/// A context that does not read for a long time, such as an idle model actor's, would hold every
/// key every other context saved meanwhile: past ``keyLimit`` keys waiting, the inbox keeps one
/// change of unknown rows instead, and the context's next read reads its registered models again,
/// as it does after another process's commit.
final class ChangeInbox: Sendable {
    /// The changes waiting, and how many keys they name.
    private let pending = Mutex<(changes: [StoreChange], keys: Int)>(([], 0))
    private let flag = Atomic<Bool>(false)
    /// Called after a change arrives, from the committing thread. The main context uses it to
    /// schedule a merge on the main actor.
    let onChange: (@Sendable () -> Void)?
    /// The most keys kept waiting (800 kB of them).
    let keyLimit: Int

    init(keyLimit: Int = 100_000, onChange: (@Sendable () -> Void)? = nil) {
        self.keyLimit = keyLimit
        self.onChange = onChange
    }

    /// Whether changes are waiting; one atomic load.
    var hasChanges: Bool { flag.load(ordering: .acquiring) }

    /// Keeps `change` waiting; the publisher calls ``onChange`` once every inbox has it.
    func keep(_ change: StoreChange) {
        pending.withLock { pending in
            // A change of unknown rows has every later one in it.
            if pending.changes.first?.isExternal != true {
                pending.keys += change.keyCount
                if change.isExternal || pending.keys > keyLimit {
                    pending = ([.external], 0)
                } else {
                    pending.changes.append(change)
                }
            }
            flag.store(true, ordering: .releasing)
        }
    }

    /// Takes every waiting change, oldest first.
    func drain() -> [StoreChange] {
        pending.withLock { pending in
            flag.store(false, ordering: .releasing)
            defer { pending = ([], 0) }
            return pending.changes
        }
    }
}

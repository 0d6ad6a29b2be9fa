import Synchronization

/// What one commit changed in a store, as the contexts of the process learn it: the primary keys
/// of the rows inserted, updated and deleted, by entity name, read from the history for commits
/// of other processes. A commit whose rows are unknown is ``external``.
struct StoreChange: Sendable {
    var inserted: [String: [Int64]] = [:]
    var updated: [String: [Int64]] = [:]
    var deleted: [String: [Int64]] = [:]
    /// Set when which rows the commit touched is unknown: a commit by another process whose
    /// history cannot say, or one that emptied the store.
    var isExternal = false
    /// The ``Store`` (one per container) whose context committed; nil for other processes.
    var origin: ObjectIdentifier?

    static let external = StoreChange(isExternal: true)

    var isEmpty: Bool { !isExternal && inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// Where a context receives the changes other contexts commit. The store appends from any thread;
/// the context drains it, on its own isolation domain, before its next read.
final class ChangeInbox: Sendable {
    private let pending = Mutex<[StoreChange]>([])
    private let flag = Atomic<Bool>(false)
    /// Called after a change arrives, from the committing thread. The main context uses it to
    /// schedule a merge on the main actor.
    let onChange: (@Sendable () -> Void)?

    init(onChange: (@Sendable () -> Void)? = nil) {
        self.onChange = onChange
    }

    /// Whether changes are waiting; one atomic load.
    var hasChanges: Bool { flag.load(ordering: .acquiring) }

    func deliver(_ change: StoreChange) {
        pending.withLock { pending in
            pending.append(change)
            flag.store(true, ordering: .releasing)
        }
        onChange?()
    }

    /// Takes every waiting change, oldest first.
    func drain() -> [StoreChange] {
        pending.withLock { pending in
            flag.store(false, ordering: .releasing)
            defer { pending.removeAll() }
            return pending
        }
    }
}

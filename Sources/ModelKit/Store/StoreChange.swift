import Synchronization

/// What one commit changed in a store, as the contexts of the process learn it: the primary keys
/// of the rows inserted, updated and deleted, by entity name. A commit made by another process is
/// ``external``: which rows it touched is unknown.
struct StoreChange: Sendable {
    var inserted: [String: [Int64]] = [:]
    var updated: [String: [Int64]] = [:]
    var deleted: [String: [Int64]] = [:]
    /// Set for commits by another process (or another connection outside ModelKit).
    var isExternal = false

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

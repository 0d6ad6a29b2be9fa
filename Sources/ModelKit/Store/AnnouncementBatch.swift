/// Which of a process's commits tells other instances about them (PostgreSQL's `NOTIFY`), so
/// that commits made at once share announcements: each one costs the server a notification-queue
/// entry and a wake-up of every instance's listener, about a quarter of a small save's server
/// time (measured with `modelkit-load`).
///
/// A commit that finds no other commit carrying announcements becomes the carrier: its own
/// change goes with its `COMMIT`, as before. A commit that starts while a carrier's is under way
/// leaves its change to the carrier, which sends every change left to it in one announcement
/// once its own commit is done. A change left after the carrier finished is sent by its own
/// commit. Decisions only: the caller sends.
struct AnnouncementBatch {
    private var carrierIsCommitting = false
    private var left = StoreChange()

    /// What a commit does with its change.
    enum Role {
        /// Send the change with the commit, then what ``carrierFinished()`` returns.
        case carrier
        /// Commit without announcing; once committed, hand the change to ``leave(_:)``.
        case leaver
    }

    /// The role of a commit about to be sent.
    mutating func role() -> Role {
        guard !carrierIsCommitting else { return .leaver }
        carrierIsCommitting = true
        return .carrier
    }

    /// The carrier's commit is done, committed or not: the changes left to it, to announce now;
    /// nil when none was.
    mutating func carrierFinished() -> StoreChange? {
        carrierIsCommitting = false
        defer { left = StoreChange() }
        return left.isEmpty ? nil : left
    }

    /// A leaver committed `change`: nil when the carrier will announce it, or the change to
    /// announce now when the carrier has finished.
    mutating func leave(_ change: StoreChange) -> StoreChange? {
        guard carrierIsCommitting else { return change }
        left.merge(change)
        return nil
    }
}

extension StoreChange {
    /// Adds `other`'s rows to this change's.
    mutating func merge(_ other: StoreChange) {
        isExternal = isExternal || other.isExternal
        inserted.merge(other.inserted, uniquingKeysWith: +)
        updated.merge(other.updated, uniquingKeysWith: +)
        deleted.merge(other.deleted, uniquingKeysWith: +)
    }
}

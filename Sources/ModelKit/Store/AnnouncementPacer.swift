/// When a process tells other instances about its commits (PostgreSQL's `NOTIFY`): each
/// announcement costs the server a transaction of its own, a notification-queue entry and a
/// wake-up of every instance's listener, about 240 µs of server time at four instances, a
/// small save's whole server time. So announcements are paced: at most one per ``interval``,
/// carrying every change committed since the last.
///
/// A change committed after a quiet spell goes at once; one committed within ``interval`` of
/// the last announcement waits for the interval to end, with every change committed meanwhile.
/// Another instance hears a commit at most ``interval`` late, and a busy instance sends
/// `1 / interval` announcements a second however many saves it makes. Decisions only: the
/// caller schedules and sends.
struct AnnouncementPacer {
    /// The least time between two announcements.
    let interval: Duration
    private var pending = StoreChange()
    private var isScheduled = false
    private var lastSent: ContinuousClock.Instant?

    init(interval: Duration) {
        self.interval = interval
    }

    /// A commit's change, at `now`: when to send the announcement that carries it, or nil
    /// when one already scheduled will.
    mutating func add(_ change: StoreChange, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        pending.merge(change)
        guard !isScheduled else { return nil }
        isScheduled = true
        guard let lastSent else { return now }
        return max(now, lastSent + interval)
    }

    /// The scheduled announcement is due, at `now`: every change added since the last one,
    /// merged, each row named once.
    mutating func take(now: ContinuousClock.Instant) -> StoreChange {
        isScheduled = false
        lastSent = now
        defer { pending = StoreChange() }
        return pending.namingEachRowOnce
    }
}

extension StoreChange {
    /// The change with each key named once per kind: a row saved many times within an interval
    /// takes one place in the announcement, whose payload PostgreSQL limits.
    var namingEachRowOnce: StoreChange {
        func once(_ keys: [String: [Int64]]) -> [String: [Int64]] { keys.mapValues { Array(Set($0)).sorted() } }
        var change = self
        (change.inserted, change.updated, change.deleted) = (once(inserted), once(updated), once(deleted))
        return change
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

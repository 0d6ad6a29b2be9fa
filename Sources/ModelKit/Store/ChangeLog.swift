import Synchronization

/// The changes committed to one store that the process's contexts learn of, in order: those its
/// contexts commit and those heard from other processes. A commit appends once, whatever the
/// number of contexts, and each context reads what is new since it last read (its
/// ``ChangeInbox``): with every commit writing to every live context instead, a save cost a fifth
/// of a server instance's time at 64 concurrent requests (`modelkit-load`).
///
/// Entries go once every inbox has read them (checked every ``trimInterval`` appends), or, oldest
/// first, once the log holds more than ``keyLimit`` keys; an inbox that had not read them then
/// reads one change of unknown rows.
final class ChangeLog: Sendable {
    private struct Entry {
        let change: StoreChange
        /// The inbox of the context that committed it, which does not read it.
        let source: ObjectIdentifier?
    }

    private struct State {
        var entries: [Entry] = []
        /// The sequence number of `entries[0]`.
        var first: UInt64 = 1
        var keys = 0
        var appendsSinceTrim = 0
    }

    private let state = Mutex(State())
    /// The sequence number of the newest entry; 0 before any.
    let latest = Atomic<UInt64>(0)
    /// The most keys kept (800 kB of them).
    let keyLimit: Int
    /// How many appends go between two checks of what every inbox has read.
    static let trimInterval = 256

    init(keyLimit: Int = 100_000) {
        self.keyLimit = keyLimit
    }

    /// Appends `change`, committed by the context of `source` (nil for another process's);
    /// returns its sequence number, and whether it is time to ``trim(readUpTo:)``.
    func append(_ change: StoreChange, from source: ChangeInbox?) -> (sequence: UInt64, shouldTrim: Bool) {
        state.withLock { state in
            state.entries.append(Entry(change: change, source: source.map(ObjectIdentifier.init)))
            state.keys += change.keyCount
            var (excess, keys) = (0, state.keys)
            while keys > keyLimit, excess < state.entries.count - 1 {
                keys -= state.entries[excess].change.keyCount
                excess += 1
            }
            if excess > 0 { drop(excess, from: &state) }
            let sequence = state.first + UInt64(state.entries.count) - 1
            latest.store(sequence, ordering: .releasing)
            state.appendsSinceTrim += 1
            let shouldTrim = state.appendsSinceTrim >= Self.trimInterval
            if shouldTrim { state.appendsSinceTrim = 0 }
            return (sequence, shouldTrim)
        }
    }

    /// How many entries the log holds.
    var count: Int { state.withLock { $0.entries.count } }

    /// Lets go of the entries up to `sequence`, which every inbox has read.
    func trim(readUpTo sequence: UInt64) {
        state.withLock { state in
            guard sequence >= state.first else { return }
            drop(min(state.entries.count, Int(sequence - state.first + 1)), from: &state)
        }
    }

    /// The changes after `position`, but those `reader` committed, and the sequence number read
    /// up to; one change of unknown rows when the log let go of some of them.
    func changes(after position: UInt64, except reader: ObjectIdentifier) -> ([StoreChange], UInt64) {
        state.withLock { state in
            let last = state.first + UInt64(state.entries.count) - 1
            guard position + 1 >= state.first else { return ([.external], last) }
            let unread = state.entries[Int(position + 1 - state.first)...]
            var changes: [StoreChange] = []
            for entry in unread where entry.source != reader {
                // A change of unknown rows has every later one in it.
                if entry.change.isExternal { return ([.external], last) }
                changes.append(entry.change)
            }
            return (changes, last)
        }
    }

    private func drop(_ count: Int, from state: inout State) {
        for entry in state.entries.prefix(count) { state.keys -= entry.change.keyCount }
        state.entries.removeFirst(count)
        state.first += UInt64(count)
    }
}

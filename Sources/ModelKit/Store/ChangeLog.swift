import Synchronization

/// The changes committed to one store that the process's contexts learn of, in order: those its
/// contexts commit and those heard from other processes. A commit appends once, whatever the
/// number of contexts, and each context reads what is new since it last read (its
/// ``ChangeInbox``): with every commit writing to every live context instead, a save cost a fifth
/// of a server instance's time at 64 concurrent requests (`modelkit-load`).
///
/// Entries go once every inbox has read them (checked every ``trimInterval`` appends), or,
/// oldest first, when the log holds more than ``keyLimit`` keys or ``entryLimit`` entries: it
/// then keeps the newest half, and an inbox that had not read what went reads one change of
/// unknown rows. So an inbox that never reads (an idle model actor's context, a server's main
/// context whose actor never runs) costs a bounded amount of memory and nothing per commit.
final class ChangeLog: Sendable {
    private struct Entry {
        let change: StoreChange
        /// The inbox of the context that committed it, which does not read it.
        let source: ObjectIdentifier?
        /// What the entry counts for against the limits: its keys, at least one.
        var weight: Int { max(1, change.keyCount) }
    }

    private struct State {
        /// The entries, those before `head` gone (kept until compacted, at most as many again).
        var entries: [Entry] = []
        var head = 0
        /// The sequence number of `entries[head]`.
        var first: UInt64 = 1
        var weight = 0
        var appendsSinceTrim = 0
        var count: Int { entries.count - head }
        var last: UInt64 { first + UInt64(count) - 1 }
    }

    private let state = PosixMutex(State())
    /// The sequence number of the newest entry; 0 before any.
    let latest = Atomic<UInt64>(0)
    /// The most keys kept.
    let keyLimit: Int
    /// The most entries kept (a change is a few hundred bytes, however few keys it names).
    let entryLimit: Int
    /// How many appends go between two checks of what every inbox has read.
    static let trimInterval = 256

    init(keyLimit: Int = 100_000, entryLimit: Int = 10_000) {
        self.keyLimit = keyLimit
        self.entryLimit = entryLimit
    }

    /// How many entries the log holds.
    var count: Int { state.withLock { $0.count } }

    /// Appends `change`, committed by the context of `source` (nil for another process's), and
    /// moves `source` past it when it had read everything before; returns whether it is time to
    /// ``trim(readUpTo:)``.
    func append(_ change: StoreChange, from source: ChangeInbox?) -> Bool {
        // A change past the key limit alone is kept as one of unknown rows: a reader would read
        // every model again either way, and the log does not hold its keys (8 MB a million).
        let kept = change.keyCount > keyLimit ? StoreChange.external : change
        return state.withLock { state in
            let entry = Entry(change: kept, source: source.map(ObjectIdentifier.init))
            state.entries.append(entry)
            state.weight += entry.weight
            if state.weight > keyLimit || state.count > entryLimit { dropOldest(&state) }
            let sequence = state.last
            latest.store(sequence, ordering: .releasing)
            if let source, source.position.load(ordering: .relaxed) == sequence - 1 {
                source.position.store(sequence, ordering: .releasing)
            }
            state.appendsSinceTrim += 1
            guard state.appendsSinceTrim >= Self.trimInterval else { return false }
            state.appendsSinceTrim = 0
            return true
        }
    }

    /// Lets go of the entries up to `sequence`, which every inbox has read.
    func trim(readUpTo sequence: UInt64) {
        state.withLock { state in
            guard sequence >= state.first else { return }
            drop(min(state.count, Int(sequence - state.first + 1)), from: &state)
        }
    }

    /// Takes the changes `inbox` has not read, but those its context committed, and moves it
    /// past them; one change of unknown rows when the log let go of some of them. Under the
    /// log's lock, so that two threads draining one inbox (an observer's, drained where commits
    /// happen) take each change once.
    func take(for inbox: ChangeInbox) -> [StoreChange] {
        state.withLock { state in
            let position = inbox.position.load(ordering: .relaxed)
            let last = state.last
            guard position < last else { return [] }
            inbox.position.store(last, ordering: .releasing)
            guard position + 1 >= state.first else { return [.external] }
            let reader = ObjectIdentifier(inbox)
            var changes: [StoreChange] = []
            for entry in state.entries[(state.head + Int(position + 1 - state.first))...] where entry.source != reader {
                // A change of unknown rows has every later one in it.
                if entry.change.isExternal { return [.external] }
                changes.append(entry.change)
            }
            return changes
        }
    }

    /// Keeps the newest half of what the limits allow, and always the newest entry.
    private func dropOldest(_ state: inout State) {
        var (dropped, weight) = (0, state.weight)
        while weight > keyLimit / 2 || state.count - dropped > entryLimit / 2, dropped < state.count - 1 {
            weight -= state.entries[state.head + dropped].weight
            dropped += 1
        }
        drop(dropped, from: &state)
    }

    private func drop(_ count: Int, from state: inout State) {
        guard count > 0 else { return }
        for entry in state.entries[state.head..<(state.head + count)] { state.weight -= entry.weight }
        state.head += count
        state.first += UInt64(count)
        if state.head * 2 >= state.entries.count {
            state.entries.removeFirst(state.head)
            state.head = 0
        }
    }
}

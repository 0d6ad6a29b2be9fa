import Synchronization

/// Active dependency overrides, a stack per key. The top of a key's stack wins; removing an entry
/// (by its token) uncovers the one below, so nested overrides unwind in order.
final class OverrideStack: Sendable {
    private struct Entry: Sendable {
        let token: ObjectIdentifier
        let value: any Sendable
    }

    private let stacks = Mutex<[String: [Entry]]>([:])

    /// Takes over every override of `other`, as it stands.
    func adopt(_ other: OverrideStack) {
        let adopted = other.stacks.withLock { $0 }
        stacks.withLock { $0.merge(adopted) { _, theirs in theirs } }
    }

    func push(_ value: any Sendable, key: String, token: ObjectIdentifier) {
        stacks.withLock { $0[key, default: []].append(Entry(token: token, value: value)) }
    }

    func remove(key: String, token: ObjectIdentifier) {
        stacks.withLock { stacks in
            stacks[key]?.removeAll { $0.token == token }
            if stacks[key]?.isEmpty == true { stacks[key] = nil }
        }
    }

    /// Replaces the value of the newest override of `key`, if there is one.
    func replaceTop(_ key: String, with value: any Sendable) -> Bool {
        stacks.withLock { stacks in
            guard let last = stacks[key]?.last else { return false }
            stacks[key]![stacks[key]!.count - 1] = Entry(token: last.token, value: value)
            return true
        }
    }

    func top<Value>(_ key: String) -> Value? {
        guard let entry = stacks.withLock({ $0[key]?.last }) else { return nil }
        return (Slot.cast(entry.value, key: key) as Value)
    }

    var keys: [String] { stacks.withLock { Array($0.keys) } }
}

import Synchronization

/// The values an application has resolved, keyed by ``Application/Scope/key``.
///
/// Each key owns one ``Slot``. The dictionary lock is held only to find or add a slot; a value is
/// built under the slot's own lock, so building one dependency never blocks another.
final class Cache: Sendable {
    private let slots = Mutex<[String: Slot]>([:])

    /// The slot for `key`, created on first use.
    func slot(_ key: String) -> Slot {
        slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
    }

    /// Takes over every slot of `other`: the same slots, so states read through either cache stay
    /// one.
    func adopt(_ other: Cache) {
        let adopted = other.slots.withLock { $0 }
        slots.withLock { $0.merge(adopted) { _, theirs in theirs } }
    }

    /// The keys whose slots hold a value.
    var keys: [String] {
        slots.withLock { $0.filter { $0.value.hasValue }.map(\.key) }
    }
}

/// One cached value, built at most once.
final class Slot: Sendable {
    private let stored = Mutex<(any Sendable)?>(nil)

    var hasValue: Bool { stored.withLock { $0 != nil } }

    /// The stored value, or the result of `make`, stored, if there is none yet. Concurrent callers
    /// wait for the first one's `make`, which therefore runs exactly once.
    func value<Value: Sendable>(key: String, orMake make: () -> Value) -> Value {
        stored.withLock { stored in
            if let existing = stored { return Self.cast(existing, key: key) }
            let value = make()
            stored = value
            return value
        }
    }

    func set(_ value: (any Sendable)?) {
        stored.withLock { $0 = value }
    }

    /// Two registrations sharing one key with different types is a programming error: say which.
    static func cast<Value>(_ existing: any Sendable, key: String) -> Value {
        guard let value = existing as? Value else {
            preconditionFailure(
                "AppState: the key '\(key)' holds a \(type(of: existing)), but it was read as a \(Value.self). "
                    + "Two registrations share this feature/id; give each its own id.")
        }
        return value
    }
}

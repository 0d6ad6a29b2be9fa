import Synchronization

/// A custom store's identifiers and the row keys the engine gives their models in a container:
/// the context's identity map, faults and saves work on 64-bit keys, and a custom store's
/// identifiers are any key (a UUID, a string), so each identifier gets a key on first sight,
/// kept for the container's life.
final class StoreKeys: Sendable {
    private let table = Mutex<(keys: [PersistentIdentifier: Int64], identifiers: [PersistentIdentifier])>(([:], []))
    /// This table's tag in the keys it leaves on identifiers' scopes: the top 20 bits.
    private let tag: Int64
    private static let tags = Atomic<Int64>(0)
    private static let keyBits: Int64 = 43

    init() {
        tag = (Self.tags.add(1, ordering: .relaxed).newValue & 0xF_FFFF) << Self.keyBits
    }

    /// The key of `identifier`, given now if it has none.
    func key(for identifier: PersistentIdentifier) -> Int64 {
        table.withLock { Self.key(for: identifier, in: &$0, tag: tag) }
    }

    /// The keys of `identifiers`, given now to those that have none: one lock for them all.
    func keys<S: Sequence<PersistentIdentifier>>(for identifiers: S) -> [Int64] {
        table.withLock { table in identifiers.map { Self.key(for: $0, in: &table, tag: tag) } }
    }

    /// The key of `identifier`: the one its scope holds from this table (checked against the
    /// table, since tags repeat after a million tables), else the table's, else a new one.
    private static func key(
        for identifier: PersistentIdentifier, in table: inout (keys: [PersistentIdentifier: Int64], identifiers: [PersistentIdentifier]), tag: Int64
    ) -> Int64 {
        let scope = identifier.scope
        let left = scope.storeKey.load(ordering: .relaxed)
        if left != 0, left & ~((1 << keyBits) - 1) == tag {
            let key = left & ((1 << keyBits) - 1)
            if key <= table.identifiers.count, table.identifiers[Int(key - 1)].scope === scope { return key }
        }
        let key: Int64
        if let found = table.keys[identifier] {
            key = found
        } else {
            table.identifiers.append(identifier)
            key = Int64(table.identifiers.count)
            table.keys[identifier] = key
        }
        // Only a scope of its own (a custom key's) stands for this one identifier.
        if scope.primaryKey != nil, key < (1 << keyBits) { scope.storeKey.store(tag | key, ordering: .relaxed) }
        return key
    }

    /// The key of `identifier` if it has one.
    func existingKey(for identifier: PersistentIdentifier) -> Int64? {
        table.withLock { $0.keys[identifier] }
    }

    /// The identifier whose key is `key`.
    func identifier(for key: Int64) -> PersistentIdentifier? {
        table.withLock { table in
            key > 0 && key <= Int64(table.identifiers.count) ? table.identifiers[Int(key - 1)] : nil
        }
    }
}

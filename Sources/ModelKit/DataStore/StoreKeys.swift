import Synchronization

/// A custom store's identifiers and the row keys the engine gives their models in a container:
/// the context's identity map, faults and saves work on 64-bit keys, and a custom store's
/// identifiers are any key (a UUID, a string), so each identifier gets a key on first sight,
/// kept for the container's life.
final class StoreKeys: Sendable {
    private let table = Mutex<(keys: [PersistentIdentifier: Int64], identifiers: [PersistentIdentifier], scopes: [String: PersistentIdentifier.Scope])>(([:], [], [:]))

    /// The key of `identifier`, given now if it has none.
    func key(for identifier: PersistentIdentifier) -> Int64 {
        table.withLock { table in
            if let key = table.keys[identifier] { return key }
            table.identifiers.append(identifier)
            let key = Int64(table.identifiers.count)
            table.keys[identifier] = key
            return key
        }
    }

    /// The keys of `identifiers`, given now to those that have none: one lock for them all.
    func keys(for identifiers: [PersistentIdentifier]) -> [Int64] {
        table.withLock { table in
            identifiers.map { identifier in
                if let key = table.keys[identifier] { return key }
                table.identifiers.append(identifier)
                let key = Int64(table.identifiers.count)
                table.keys[identifier] = key
                return key
            }
        }
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

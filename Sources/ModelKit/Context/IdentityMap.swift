/// The stored models a context has in memory, one instance per row.
///
/// An open-addressing table keyed by entity and primary key: loading a large fetch inserts every
/// row, and a `Dictionary` would spend much of that time rehashing with SipHash as it grows.
///
/// The map holds its models strongly (weak references cost a side table per model) and sweeps out
/// the ones nothing else references whenever it has doubled since the last sweep, so memory follows
/// the models in use rather than every row ever loaded.
struct IdentityMap {
    private var keys: [RowKey?] = Array(repeating: nil, count: 64)
    private var models: [AnyObject?] = Array(repeating: nil, count: 64)
    private(set) var count = 0
    private var sweepAt = 4096

    var isEmpty: Bool { count == 0 }

    /// Calls `body` with every model of the entities `entities` names (by `ObjectIdentifier`).
    func forEachModel(of entities: Set<ObjectIdentifier>, _ body: (AnyObject) -> Void) {
        for slot in keys.indices {
            guard let key = keys[slot], entities.contains(key.entity), let model = models[slot] else { continue }
            body(model)
        }
    }

    /// The keys of every model in the map.
    var allKeys: [RowKey] { keys.compactMap { $0 } }

    subscript(key: RowKey) -> AnyObject? {
        guard let slot = find(key) else { return nil }
        return models[slot]
    }

    mutating func insert(_ model: AnyObject, for key: RowKey) {
        if let slot = find(key) {
            models[slot] = model
            return
        }
        insertNew(model, for: key)
    }

    /// Inserts a model whose key the caller has just looked up and not found.
    mutating func insertNew(_ model: AnyObject, for key: RowKey) {
        if (count + 1) * 4 > keys.count * 3 { resize(to: keys.count * 2) }
        var slot = home(key)
        while keys[slot] != nil { slot = next(slot) }
        keys[slot] = key
        models[slot] = model
        count += 1
        if count >= sweepAt { sweep() }
    }

    @discardableResult
    mutating func removeValue(forKey key: RowKey) -> AnyObject? {
        guard var hole = find(key) else { return nil }
        let removed = models[hole]
        keys[hole] = nil
        models[hole] = nil
        count -= 1
        // Backward-shift deletion: move later entries of the probe run into the hole.
        var slot = next(hole)
        while let moving = keys[slot] {
            let wanted = home(moving)
            if distance(wanted, hole) < distance(wanted, slot) {
                keys[hole] = moving
                models[hole] = models[slot]
                keys[slot] = nil
                models[slot] = nil
                hole = slot
            }
            slot = next(slot)
        }
        return removed
    }

    /// Drops the models only the map references.
    mutating func sweep() {
        var released: [RowKey] = []
        for slot in 0..<keys.count where keys[slot] != nil && isKnownUniquelyReferenced(&models[slot]) {
            released.append(keys[slot]!)
        }
        for key in released { removeValue(forKey: key) }
        sweepAt = max(4096, count * 2)
    }

    private func find(_ key: RowKey) -> Int? {
        var slot = home(key)
        while let candidate = keys[slot] {
            if candidate == key { return slot }
            slot = next(slot)
        }
        return nil
    }

    private func home(_ key: RowKey) -> Int {
        let mixed = (UInt64(bitPattern: key.rowID) ^ UInt64(UInt(bitPattern: key.entity))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 32) & (keys.count - 1)
    }

    private func next(_ slot: Int) -> Int { (slot + 1) & (keys.count - 1) }

    /// How far `slot` is past `home`, going forward around the table.
    private func distance(_ home: Int, _ slot: Int) -> Int { (slot - home) & (keys.count - 1) }

    private mutating func resize(to capacity: Int) {
        let oldKeys = keys
        var oldModels = models
        keys = Array(repeating: nil, count: capacity)
        models = Array(repeating: nil, count: capacity)
        for slot in oldKeys.indices {
            guard let key = oldKeys[slot] else { continue }
            var target = home(key)
            while keys[target] != nil { target = next(target) }
            keys[target] = key
            swap(&models[target], &oldModels[slot])  // a move: no retain and release per model
        }
    }
}

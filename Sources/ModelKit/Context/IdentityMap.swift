/// The stored models a context has in memory, one instance per row.
///
/// One open-addressing table per entity, keyed by primary key: loading a large fetch inserts every
/// row, and a `Dictionary` would spend much of that time rehashing with SipHash as it grows. A
/// slot is a key and a model reference, 16 bytes.
///
/// The map holds its models strongly (weak references cost a side table per model) and sweeps out
/// the ones nothing else references whenever it has doubled since the last sweep, so memory follows
/// the models in use rather than every row ever loaded.
struct IdentityMap {
    private var tables: [EntityTable] = []
    private(set) var count = 0
    private var sweepAt = 4096

    var isEmpty: Bool { count == 0 }

    /// Calls `body` with every model of the entities `entities` names (by `ObjectIdentifier`).
    func forEachModel(of entities: Set<ObjectIdentifier>, _ body: (AnyObject) -> Void) {
        for table in tables where entities.contains(table.entity) { table.forEach(body) }
    }

    /// The keys of every model in the map.
    var allKeys: [RowKey] {
        tables.flatMap { table in table.rowIDs.map { RowKey(entity: table.entity, rowID: $0) } }
    }

    subscript(key: RowKey) -> AnyObject? {
        guard let index = tableIndex(of: key.entity) else { return nil }
        return tables[index][key.rowID]
    }

    /// Puts `model` under `key`, replacing the model there, if any.
    mutating func insert(_ model: AnyObject, for key: RowKey) {
        if let index = tableIndex(of: key.entity), tables[index].replace(key.rowID, with: model) { return }
        insertUnlessPresent(model, for: key)
    }

    /// Inserts `model` under `key` unless a model is there already, and returns that one: one
    /// probe of the table either way.
    @discardableResult
    mutating func insertUnlessPresent(_ model: AnyObject, for key: RowKey) -> AnyObject? {
        let index = tableIndex(of: key.entity) ?? addTable(for: key.entity)
        if let present = tables[index].insertUnlessPresent(model, for: key.rowID) { return present }
        count += 1
        if count >= sweepAt { sweep() }
        return nil
    }

    @discardableResult
    mutating func removeValue(forKey key: RowKey) -> AnyObject? {
        guard let index = tableIndex(of: key.entity), let removed = tables[index].remove(key.rowID) else { return nil }
        count -= 1
        return removed
    }

    /// Drops the models only the map references.
    mutating func sweep() {
        for index in tables.indices { count -= tables[index].sweep() }
        sweepAt = max(4096, count * 2)
    }

    private func tableIndex(of entity: ObjectIdentifier) -> Int? {
        tables.firstIndex { $0.entity == entity }
    }

    private mutating func addTable(for entity: ObjectIdentifier) -> Int {
        tables.append(EntityTable(entity: entity))
        return tables.count - 1
    }
}

/// One entity's models by primary key: linear probing, backward-shift deletion.
private struct EntityTable {
    /// Marks an empty slot; no store makes this key.
    private static let empty = Int64.min

    let entity: ObjectIdentifier
    private var keys = [Int64](repeating: empty, count: 64)
    private var models = [AnyObject?](repeating: nil, count: 64)
    private var count = 0
    /// 64 minus the bits of the capacity: a key's home is the top bits of its Fibonacci hash.
    private var shift = 64 - 6

    init(entity: ObjectIdentifier) {
        self.entity = entity
    }

    var rowIDs: [Int64] { keys.filter { $0 != Self.empty } }

    func forEach(_ body: (AnyObject) -> Void) {
        for slot in keys.indices where keys[slot] != Self.empty {
            if let model = models[slot] { body(model) }
        }
    }

    subscript(rowID: Int64) -> AnyObject? {
        find(rowID).flatMap { models[$0] }
    }

    /// Replaces the model under `rowID`; false when there is none.
    mutating func replace(_ rowID: Int64, with model: AnyObject) -> Bool {
        guard let slot = find(rowID) else { return false }
        models[slot] = model
        return true
    }

    mutating func insertUnlessPresent(_ model: AnyObject, for rowID: Int64) -> AnyObject? {
        if (count + 1) * 4 > keys.count * 3 { resize(to: keys.count * 2) }
        var slot = home(rowID)
        while keys[slot] != Self.empty {
            if keys[slot] == rowID { return models[slot] }
            slot = next(slot)
        }
        keys[slot] = rowID
        models[slot] = model
        count += 1
        return nil
    }

    mutating func remove(_ rowID: Int64) -> AnyObject? {
        guard var hole = find(rowID) else { return nil }
        let removed = models[hole]
        keys[hole] = Self.empty
        models[hole] = nil
        count -= 1
        // Backward-shift deletion: move later entries of the probe run into the hole.
        var slot = next(hole)
        while keys[slot] != Self.empty {
            let wanted = home(keys[slot])
            if distance(wanted, hole) < distance(wanted, slot) {
                keys[hole] = keys[slot]
                models[hole] = models[slot]
                keys[slot] = Self.empty
                models[slot] = nil
                hole = slot
            }
            slot = next(slot)
        }
        return removed
    }

    /// Drops the models only the table references; returns how many.
    mutating func sweep() -> Int {
        var released: [Int64] = []
        for slot in keys.indices where keys[slot] != Self.empty && isKnownUniquelyReferenced(&models[slot]) {
            released.append(keys[slot])
        }
        for rowID in released { _ = remove(rowID) }
        return released.count
    }

    private func find(_ rowID: Int64) -> Int? {
        var slot = home(rowID)
        while keys[slot] != Self.empty {
            if keys[slot] == rowID { return slot }
            slot = next(slot)
        }
        return nil
    }

    private func home(_ rowID: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: rowID) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    private func next(_ slot: Int) -> Int { (slot + 1) & (keys.count - 1) }

    /// How far `slot` is past `home`, going forward around the table.
    private func distance(_ home: Int, _ slot: Int) -> Int { (slot - home) & (keys.count - 1) }

    private mutating func resize(to capacity: Int) {
        let oldKeys = keys
        var oldModels = models
        keys = [Int64](repeating: Self.empty, count: capacity)
        models = [AnyObject?](repeating: nil, count: capacity)
        shift = 64 - capacity.trailingZeroBitCount
        for slot in oldKeys.indices where oldKeys[slot] != Self.empty {
            var target = home(oldKeys[slot])
            while keys[target] != Self.empty { target = next(target) }
            keys[target] = oldKeys[slot]
            swap(&models[target], &oldModels[slot])  // a move: no retain and release per model
        }
    }
}

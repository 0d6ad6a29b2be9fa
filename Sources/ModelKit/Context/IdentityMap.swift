/// The stored models a context has in memory, one instance per row.
///
/// One open-addressing table per entity, keyed by primary key: loading a large fetch inserts every
/// row, and a `Dictionary` would spend much of that time rehashing with SipHash as it grows.
///
/// The map holds its models strongly (weak references cost a side table per model). The context
/// calls ``sweepIfGrown()`` between operations, which drops the models nothing else references once
/// the map has doubled since the last sweep, so memory follows the models in use rather than every
/// row ever loaded. Sweeping never happens while a fetch is loading rows: those models are all in
/// the result being built.
final class IdentityMap {
    /// Only ever accessed one at a time, from the map's own methods, which call no code that could
    /// reach it again: the check for overlapping access Swift otherwise makes on each use of a
    /// class's field is off (a fetch made two per row).
    @exclusivity(unchecked) private var tables: [EntityTable] = []
    private(set) var count = 0
    private var sweepAt = 4096

    var isEmpty: Bool { count == 0 }

    /// Calls `body` with each model of the entity `entity` names.
    func forEachModel(of entity: ObjectIdentifier, _ body: (AnyObject) -> Void) {
        table(of: entity)?.forEach(body)
    }

    /// The keys of every model in the map.
    var allKeys: [RowKey] {
        tables.flatMap { table in table.rowIDs.map { RowKey(entity: table.entity, rowID: $0) } }
    }

    subscript(key: RowKey) -> AnyObject? {
        table(of: key.entity)?[key.rowID]
    }

    /// Puts `model` under `key`, replacing the model there, if any.
    func insert(_ model: AnyObject, for key: RowKey) {
        if let table = table(of: key.entity), table.replace(key.rowID, with: model) { return }
        insertUnlessPresent(model, for: key)
    }

    /// Inserts `model` under `key` unless a model is there already, and returns that one: one
    /// probe of the table either way.
    @discardableResult
    func insertUnlessPresent(_ model: AnyObject, for key: RowKey) -> AnyObject? {
        let table = table(of: key.entity) ?? addTable(for: key.entity)
        if let present = table.insertUnlessPresent(model, for: key.rowID) { return present }
        count += 1
        return nil
    }

    /// Where the model under `key` is, or where one would go: a fetch looks a row up, makes its
    /// model when absent and puts it in place with ``insert(_:at:for:)``, searching once.
    enum Place {
        case present(AnyObject)
        /// The empty slot the key's search ended on, good while the table is unchanged.
        case absent(table: Unmanaged<EntityTable>, slot: Int, version: Int)
    }

    /// The model under `key`, or the place to insert one. The table is used unretained here and
    /// in ``insert(_:at:for:)``: the map keeps its tables for as long as it lives, and a retain
    /// and release of it cost each loaded row about 40 instructions.
    func place(of key: RowKey) -> Place {
        let table = unretainedTable(of: key.entity) ?? Unmanaged.passUnretained(addTable(for: key.entity))
        return table._withUnsafeGuaranteedRef { table in
            let (present, slot) = table.probe(key.rowID)
            if let present { return .present(present) }
            return .absent(table: Unmanaged.passUnretained(table), slot: slot, version: table.version)
        }
    }

    /// Puts `model` under `key` at `place` (``place(of:)``'s answer for it), or, when the table
    /// changed since (making the model loaded others), unless a model is there already.
    func insert(_ model: AnyObject, at place: Place, for key: RowKey) {
        guard case .absent(let table, let slot, let version) = place else { return }
        let inserted = table._withUnsafeGuaranteedRef { table in
            guard table.version == version else { return false }
            table.insert(model, for: key.rowID, at: slot)
            return true
        }
        if inserted {
            count += 1
        } else {
            insertUnlessPresent(model, for: key)
        }
    }

    /// The slots `entity`'s table has, full or not: what its reserves and growth made.
    func capacity(of entity: ObjectIdentifier) -> Int {
        table(of: entity)?.capacity ?? 0
    }

    /// Makes room for `additional` more models of `entity` at once: a save of many new models
    /// grows the table once, not once per doubling with the old table alongside.
    func reserve(_ additional: Int, of entity: ObjectIdentifier) {
        (table(of: entity) ?? addTable(for: entity)).reserve(additional)
    }

    /// Makes room for `total` models of `entity` in all, at once: a fetch expecting that many rows.
    func reserve(total: Int, of entity: ObjectIdentifier) {
        guard total > 0 else { return }
        let table = table(of: entity) ?? addTable(for: entity)
        table.reserve(total - table.count)
    }

    @discardableResult
    func removeValue(forKey key: RowKey) -> AnyObject? {
        guard let removed = table(of: key.entity)?.remove(key.rowID) else { return nil }
        count -= 1
        return removed
    }

    /// Sweeps if the map has doubled since the last sweep.
    func sweepIfGrown() {
        if count >= sweepAt { sweep() }
    }

    /// Drops the models only the map references.
    func sweep() {
        for table in tables { count -= table.sweep() }
        sweepAt = max(4096, count * 2)
    }

    private func table(of entity: ObjectIdentifier) -> EntityTable? {
        unretainedTable(of: entity)?.takeUnretainedValue()
    }

    private func unretainedTable(of entity: ObjectIdentifier) -> Unmanaged<EntityTable>? {
        tables.withUnsafeBufferPointer { tables in
            for table in tables where table.entity == entity { return Unmanaged.passUnretained(table) }
            return nil
        }
    }

    private func addTable(for entity: ObjectIdentifier) -> EntityTable {
        let table = EntityTable(entity: entity)
        tables.append(table)
        return table
    }
}

/// One entity's models by primary key: linear probing over 16-byte slots, backward-shift deletion.
///
/// A key's home keeps runs of consecutive keys together: the key's block of eight is placed by the
/// top bits of its Fibonacci hash (scaled to the number of blocks), and the key's low three bits
/// pick the slot in the block. Stores hand out keys in order, so a fetch fills slots side by side
/// rather than one cache line per row, and walking the table (teardown, sweeps, growth) walks the
/// models in the order they were made. The capacity is a multiple of eight: tables double as they
/// fill, and a reserve sizes the table to what it will hold (a save of a million new models needs
/// 1.3 million slots, not the next power of two's 2.1 million).
final class EntityTable {
    private struct Slot {
        var key: Int64
        var model: AnyObject?
    }

    /// Marks an empty slot; no store makes this key.
    private static let empty = Int64.min
    private static let blockBits = 3

    let entity: ObjectIdentifier
    private var slots: UnsafeMutablePointer<Slot>
    private(set) var capacity: Int
    private(set) var count = 0
    /// The number of blocks of eight slots.
    private var blocks: UInt64

    /// A table starts with one block of eight slots: a request's context holds a model or two of
    /// an entity, and a fetch of many rows reserves room for them first. (Sixty-four slots cost
    /// every context about 1,300 instructions an entity to fill and empty.)
    init(entity: ObjectIdentifier) {
        self.entity = entity
        (slots, capacity, blocks) = Self.allocate(capacity: 8)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// `capacity` slots, a multiple of eight.
    private static func allocate(capacity: Int) -> (UnsafeMutablePointer<Slot>, Int, UInt64) {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: empty, model: nil), count: capacity)
        return (slots, capacity, UInt64(capacity >> blockBits))
    }

    var rowIDs: [Int64] {
        (0..<capacity).compactMap { slots[$0].key == Self.empty ? nil : slots[$0].key }
    }

    /// Calls `body` with each model.
    func forEach(_ body: (AnyObject) -> Void) {
        for slot in 0..<capacity where slots[slot].key != Self.empty {
            if let model = slots[slot].model { body(model) }
        }
    }

    subscript(rowID: Int64) -> AnyObject? {
        find(rowID).flatMap { slots[$0].model }
    }

    /// Replaces the model under `rowID`; false when there is none.
    func replace(_ rowID: Int64, with model: AnyObject) -> Bool {
        guard let slot = find(rowID) else { return false }
        slots[slot].model = model
        return true
    }

    func insertUnlessPresent(_ model: AnyObject, for rowID: Int64) -> AnyObject? {
        let (present, slot) = probe(rowID)
        if let present { return present }
        insert(model, for: rowID, at: slot)
        return nil
    }

    /// Changes with every insert, removal and growth: a slot ``probe(_:)`` found stays empty and
    /// right for its key while this is unchanged.
    private(set) var version = 0

    /// The model under `rowID`, or nil and the empty slot it would go in. Grows the table first
    /// when the key is absent and one more model would not fit.
    func probe(_ rowID: Int64) -> (model: AnyObject?, slot: Int) {
        let (slot, found) = search(rowID)
        if found { return (slots[slot].model, slot) }
        guard (count + 1) * 4 > capacity * 3 else { return (nil, slot) }
        grow(to: capacity * 2)
        return (nil, search(rowID).slot)
    }

    /// Puts `model` under `rowID` in the empty `slot` a ``probe(_:)`` of this version found.
    func insert(_ model: AnyObject, for rowID: Int64, at slot: Int) {
        slots[slot] = Slot(key: rowID, model: model)
        count += 1
        version &+= 1
    }

    func remove(_ rowID: Int64) -> AnyObject? {
        guard var hole = find(rowID) else { return nil }
        let removed = slots[hole].model
        slots[hole] = Slot(key: Self.empty, model: nil)
        count -= 1
        version &+= 1
        // Backward-shift deletion: move later entries of the probe run into the hole.
        var slot = next(hole)
        while slots[slot].key != Self.empty {
            let wanted = home(slots[slot].key)
            if distance(wanted, hole) < distance(wanted, slot) {
                swap(&slots[hole], &slots[slot])
                hole = slot
            }
            slot = next(slot)
        }
        return removed
    }

    /// Drops the models only the table references; returns how many.
    func sweep() -> Int {
        var released: [Int64] = []
        for slot in 0..<capacity where slots[slot].key != Self.empty && isKnownUniquelyReferenced(&slots[slot].model) {
            released.append(slots[slot].key)
        }
        for rowID in released { _ = remove(rowID) }
        return released.count
    }

    private func find(_ rowID: Int64) -> Int? {
        let (slot, found) = search(rowID)
        return found ? slot : nil
    }

    /// Where the search for `rowID` ends: its slot, or the empty slot that ends its run. The
    /// table is at most three quarters full, so every search ends.
    @inline(__always) private func search(_ rowID: Int64) -> (slot: Int, found: Bool) {
        var slot = home(rowID)
        while slots[slot].key != Self.empty {
            if slots[slot].key == rowID { return (slot, true) }
            slot = next(slot)
        }
        return (slot, false)
    }

    private func home(_ rowID: Int64) -> Int {
        let block = UInt64(bitPattern: rowID) >> UInt64(Self.blockBits)
        // The hash's top bits, scaled to the number of blocks: its high word times the count.
        let placed = Int(truncatingIfNeeded: (block &* 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: blocks).high)
        return placed << Self.blockBits | (Int(truncatingIfNeeded: rowID) & ((1 << Self.blockBits) - 1))
    }

    private func next(_ slot: Int) -> Int { slot + 1 < capacity ? slot + 1 : 0 }

    /// How far `slot` is past `home`, going forward around the table.
    private func distance(_ home: Int, _ slot: Int) -> Int { slot >= home ? slot - home : slot + capacity - home }

    /// Grows the capacity, if needed, so that `additional` more models fit within three quarters
    /// of it.
    func reserve(_ additional: Int) {
        let (total, overflow) = count.addingReportingOverflow(additional)
        guard !overflow, total * 4 > capacity * 3 else { return }
        let blockSize = 1 << Self.blockBits
        grow(to: ((total * 4 / 3 + blockSize) / blockSize) * blockSize)
    }

    /// Grows to `newCapacity` (a larger multiple of eight), moving each slot's contents: no retain
    /// and release per model.
    private func grow(to newCapacity: Int) {
        version &+= 1
        let (old, oldCapacity) = (slots, capacity)
        (slots, capacity, blocks) = Self.allocate(capacity: newCapacity)
        for index in 0..<oldCapacity where old[index].key != Self.empty {
            var target = home(old[index].key)
            while slots[target].key != Self.empty { target = next(target) }
            swap(&slots[target], &old[index])
        }
        old.deinitialize(count: oldCapacity)
        old.deallocate()
    }
}

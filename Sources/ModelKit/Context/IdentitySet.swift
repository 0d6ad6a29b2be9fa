/// A set of objects by identity: the membership of a context's pending models.
///
/// Open addressing over the objects' addresses, hashed by one multiplication: `Set<ObjectIdentifier>`
/// runs SipHash on every insert and lookup, and adding 100,000 changed models to it was about a
/// tenth of `update_all`'s time in a profile. A value type, copied on write: a copy (a
/// transaction's snapshot) shares the table until either side changes. An empty set allocates
/// nothing.
struct IdentitySet {
    private var table: Table?

    var count: Int { table?.count ?? 0 }

    var isEmpty: Bool { count == 0 }

    func contains(_ id: ObjectIdentifier) -> Bool {
        table?.find(id) != nil
    }

    /// Adds `id`; false when it was there already.
    @discardableResult
    mutating func insert(_ id: ObjectIdentifier) -> Bool {
        uniqueTable().insert(id)
    }

    /// Removes `id`; false when it was not there.
    @discardableResult
    mutating func remove(_ id: ObjectIdentifier) -> Bool {
        guard contains(id) else { return false }
        return uniqueTable().remove(id)
    }

    mutating func removeAll() {
        table = nil
    }

    /// The table, made or copied first unless this set is its only owner.
    private mutating func uniqueTable() -> Table {
        if isKnownUniquelyReferenced(&table), let table { return table }
        let unique = table.map { Table(copying: $0) } ?? Table(capacity: 16)
        table = unique
        return unique
    }
}

extension IdentitySet {
    /// Linear probing over a power-of-two number of addresses, 0 marking an empty slot (no object
    /// lives at address 0), with backward-shift deletion so that no tombstones build up.
    private final class Table {
        private var slots: UnsafeMutablePointer<UInt>
        private var capacity: Int
        /// 64 minus the capacity's bit count: the hash's top bits pick the home slot.
        private var shift: UInt64
        private(set) var count = 0

        init(capacity: Int) {
            (slots, self.capacity, shift) = Self.allocate(capacity: capacity)
        }

        init(copying other: Table) {
            (slots, capacity, shift) = Self.allocate(capacity: other.capacity)
            slots.update(from: other.slots, count: capacity)
            count = other.count
        }

        deinit {
            slots.deallocate()
        }

        private static func allocate(capacity: Int) -> (UnsafeMutablePointer<UInt>, Int, UInt64) {
            let slots = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
            slots.initialize(repeating: 0, count: capacity)
            return (slots, capacity, UInt64(64 - capacity.trailingZeroBitCount))
        }

        func find(_ id: ObjectIdentifier) -> Int? {
            let address = UInt(bitPattern: id)
            var slot = home(address)
            while slots[slot] != 0 {
                if slots[slot] == address { return slot }
                slot = next(slot)
            }
            return nil
        }

        func insert(_ id: ObjectIdentifier) -> Bool {
            if (count + 1) * 4 > capacity * 3 { grow() }
            let address = UInt(bitPattern: id)
            var slot = home(address)
            while slots[slot] != 0 {
                if slots[slot] == address { return false }
                slot = next(slot)
            }
            slots[slot] = address
            count += 1
            return true
        }

        func remove(_ id: ObjectIdentifier) -> Bool {
            guard var hole = find(id) else { return false }
            slots[hole] = 0
            count -= 1
            // Backward-shift deletion: move later entries of the probe run into the hole.
            var slot = next(hole)
            while slots[slot] != 0 {
                let wanted = home(slots[slot])
                if distance(wanted, hole) < distance(wanted, slot) {
                    slots[hole] = slots[slot]
                    slots[slot] = 0
                    hole = slot
                }
                slot = next(slot)
            }
            return true
        }

        private func home(_ address: UInt) -> Int {
            Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        }

        private func next(_ slot: Int) -> Int { (slot + 1) & (capacity - 1) }

        /// How far `slot` is past `home`, going forward around the table.
        private func distance(_ home: Int, _ slot: Int) -> Int { (slot - home) & (capacity - 1) }

        private func grow() {
            let (old, oldCapacity) = (slots, capacity)
            (slots, capacity, shift) = Self.allocate(capacity: capacity * 2)
            for index in 0..<oldCapacity where old[index] != 0 {
                var slot = home(old[index])
                while slots[slot] != 0 { slot = next(slot) }
                slots[slot] = old[index]
            }
            old.deallocate()
        }
    }
}

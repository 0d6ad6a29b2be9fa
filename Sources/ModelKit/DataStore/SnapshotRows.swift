import Foundation

/// How snapshots of one entity become the rows its models are made from: each stored
/// property's name, result column, codec and value when a snapshot lacks it, worked out once.
final class SnapshotRows {
    /// A class, so that walking the slots retains one reference each, not each field.
    fileprivate final class Slot {
        let name: String
        let column: Int
        let codec: ValueCodec?
        let isToOne: Bool
        let isToMany: Bool
        let neutral: SQLValue

        init(name: String, column: Int, codec: ValueCodec?, isToOne: Bool, isToMany: Bool, neutral: SQLValue) {
            (self.name, self.column, self.codec, self.isToOne, self.isToMany, self.neutral) = (name, column, codec, isToOne, isToMany, neutral)
        }
    }

    let entity: Schema.Entity
    fileprivate let slots: [Slot]
    fileprivate let slotsByName: [String: Slot]
    private let width: Int

    init(entity: Schema.Entity) {
        self.entity = entity
        width = entity.sql.selectedColumnCount
        slots = zip(entity.metadata, entity.resultColumns).enumerated().map { index, pair in
            let (property, column) = pair
            let relationship = entity.relationshipsByColumn[index]
            return Slot(
                name: property.name, column: Int(column), codec: property.codec, isToOne: relationship.map { !$0.isToMany } ?? false,
                isToMany: relationship?.isToMany ?? false, neutral: ModelContext.neutralValue(of: property))
        }
        slotsByName = Dictionary(slots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The slots of the properties in the order the last snapshot listed its values: snapshots
    /// of one entity list theirs in one order, so a fill walks a snapshot's values comparing
    /// names instead of hashing each to look it up. One per fetch, never shared between threads.
    struct Order {
        fileprivate var slots: [Slot?] = []
    }

    /// A row of this entity's width, to fill with ``fill(_:from:key:keys:)``.
    func makeValues() -> RowValues { RowValues(count: width) }

    /// Writes the row `snapshot` stands for into `values`: its key, each attribute encoded as its
    /// column holds it, a to-one as its target's key here. A property the snapshot lacks takes
    /// its declared default, or else zero, empty or nil.
    /// - Throws: ``ModelKitError/storedValueMismatch(entity:property:expected:found:)`` for a
    ///   value its property's type cannot hold.
    func fill(_ values: RowValues, from snapshot: DefaultSnapshot, key: Int64, keys: StoreKeys) throws {
        var order = Order()
        try fill(values, from: snapshot, key: key, keys: keys, order: &order)
    }

    /// ``fill(_:from:key:keys:)``, walking the snapshot's values in `order`, which it keeps.
    func fill(_ values: RowValues, from snapshot: DefaultSnapshot, key: Int64, keys: StoreKeys, order: inout Order) throws {
        values.row[0] = .integer(key)
        var filled = 0
        var position = 0
        for (name, value) in snapshot.values {
            defer { position += 1 }
            let found: Slot
            if position < order.slots.count, let expected = order.slots[position], expected.name == name {
                found = expected
            } else {
                let looked = slotsByName[name]
                if position < order.slots.count { order.slots[position] = looked } else { order.slots.append(looked) }
                guard let looked else { continue }
                found = looked
            }
            filled += 1
            try write(value, of: found, into: values, keys: keys)
        }
        guard filled < slots.count else { return }
        // Properties the snapshot lacks.
        for slot in slots where snapshot.values[slot.name] == nil { values.row[slot.column] = slot.neutral }
    }

    fileprivate func write(_ value: any Codable, of slot: Slot, into values: RowValues, keys: StoreKeys) throws {
        if slot.isToMany { return }
        if slot.isToOne {
            values.row[slot.column] = ModelContext.identifier(in: value).map { .integer(keys.key(for: $0)) } ?? .null
            return
        }
        do {
            guard let codec = slot.codec else { return }
            values.row[slot.column] = try codec.encode(value)
        } catch {
            let property = entity.metadata.first { $0.name == slot.name }
            throw ModelKitError.storedValueMismatch(
                entity: entity.name, property: slot.name, expected: property.map { String(describing: $0.valueType) } ?? "?",
                found: "\(value)")
        }
    }
}

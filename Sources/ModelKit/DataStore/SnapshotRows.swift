import Foundation

/// How snapshots of one entity become the rows its models are made from: each stored
/// property's name, result column, codec and value when a snapshot lacks it, worked out once.
final class SnapshotRows {
    /// A class, so that walking the slots retains one reference each, not each field.
    private final class Slot {
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
    private let slots: [Slot]
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
    }

    /// A row of this entity's width, to fill with ``fill(_:from:key:keys:)``.
    func makeValues() -> RowValues { RowValues(count: width) }

    /// Writes the row `snapshot` stands for into `values`: its key, each attribute encoded as its
    /// column holds it, a to-one as its target's key here. A property the snapshot lacks takes
    /// its declared default, or else zero, empty or nil.
    /// - Throws: ``ModelKitError/storedValueMismatch(entity:property:expected:found:)`` for a
    ///   value its property's type cannot hold.
    func fill(_ values: RowValues, from snapshot: DefaultSnapshot, key: Int64, keys: StoreKeys) throws {
        values.row[0] = .integer(key)
        let stored = snapshot.values
        for slot in slots {
            guard let value = stored[slot.name] else {
                values.row[slot.column] = slot.neutral
                continue
            }
            try write(value, of: slot, into: values, keys: keys)
        }
    }

    private func write(_ value: any Codable, of slot: Slot, into values: RowValues, keys: StoreKeys) throws {
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

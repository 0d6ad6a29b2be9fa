/// What a fetch with `propertiesToFetch` reads: the named attributes, and a placeholder in place
/// of each other attribute that can have one. The placeholders load from the row on the first
/// read of any of them (see ``ModelStorage/loadUnfetched(of:)``).
///
/// A placeholder is a value of the column's own storage, which the row hands out as if the
/// database had returned it, so that models decode it as every fetch's values: nil for an
/// optional, else the zero of the column's storage (`0`, `''`, an empty blob) when the
/// property's type decodes it. The select leaves those columns out. Relationships, and
/// attributes whose type has no such value (a `Codable` struct, a `URL`), are always read.
final class PartialFetch {
    /// The select clause, `SELECT … FROM <table>`.
    let selectClause: String
    /// The columns that hold placeholders, in order.
    let unfetched: [Int]
    /// Their faults, which every model the fetch makes shares until one of them loads.
    let faults: ModelStorage.Faults
    /// Each property's placeholder by index, nil for the properties read (see
    /// ``ModelRow/placeholders``).
    let placeholders: [SQLValue?]
    /// Each property's column in the select by index, -1 for the properties left out: the
    /// select's columns are the primary key and the properties read, in order.
    let resultColumns: [Int32]
    /// The properties (of the first 64) whose placeholder is their type's
    /// ``ColumnConvertible/_modelKitPlaceholder``, which rows then return without decoding, and
    /// those whose placeholder is `NULL`: a bit each, by property index.
    let typedPlaceholders: UInt64, nullPlaceholders: UInt64

    /// The partial fetch `descriptor`'s `propertiesToFetch` asks for, or nil when it would read
    /// every column anyway. The sort's properties are read too: sorting in memory, with unsaved
    /// changes, compares their values.
    /// - Throws: ``ModelKitError/invalidFetchDescriptor(_:)`` for a key path that is no
    ///   persisted property.
    convenience init?<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws {
        var fetched = Set<Int>()
        for keyPath in descriptor.propertiesToFetch {
            guard let column = entity.column(for: keyPath) else {
                throw ModelKitError.invalidFetchDescriptor(
                    "propertiesToFetch names \(keyPath), which is not a persisted property of \(T.self)")
            }
            fetched.insert(column)
        }
        for sort in descriptor.sortBy {
            if let keyPath = sort.keyPath, let column = entity.column(for: keyPath) { fetched.insert(column) }
        }
        self.init(entity, fetching: fetched)
    }

    /// The partial fetch of `entity` that reads `fetched`, or nil when it would read every column
    /// anyway.
    /// A class hierarchy's entities read every column: their rows may be of other classes.
    init?(_ entity: Schema.Entity, fetching fetched: Set<Int>) {
        guard entity.hierarchy == nil else { return nil }
        // The properties left out are those not fetched that have a placeholder.
        let placeholders = entity.metadata.indices.map { fetched.contains($0) ? nil : entity.unfetchedPlaceholders[$0] }
        let unfetched = placeholders.indices.filter { placeholders[$0] != nil }
        guard !unfetched.isEmpty else { return nil }
        selectClause = "SELECT \(entity.sql.selectList(qualifiedBy: nil, omitting: Set(unfetched))) FROM \(entity.sql.source)"
        var next: Int32 = 1
        resultColumns = placeholders.map { placeholder in
            guard placeholder == nil else { return -1 }
            defer { next += 1 }
            return next
        }
        self.unfetched = unfetched
        self.placeholders = placeholders
        (typedPlaceholders, nullPlaceholders) = Self.masks(of: placeholders, types: entity.metadata.map(\.valueType))
        var faults = ModelStorage.Faults()
        for column in unfetched { faults.append(.unfetched, at: column) }
        self.faults = faults
    }

    /// ``typedPlaceholders`` and ``nullPlaceholders`` of `placeholders`, for properties of `types`.
    private static func masks(of placeholders: [SQLValue?], types: [Any.Type]) -> (typed: UInt64, null: UInt64) {
        func typed<T: ColumnConvertible>(_: T.Type) -> SQLValue? { T._modelKitPlaceholder?.sqlValue }
        var masks: (typed: UInt64, null: UInt64) = (0, 0)
        for (index, placeholder) in placeholders.enumerated().prefix(64) {
            guard let placeholder else { continue }
            if placeholder == .null { masks.null |= 1 << index }
            if let type = types[index] as? any ColumnConvertible.Type, typed(type) == placeholder { masks.typed |= 1 << index }
        }
        return masks
    }

    /// The placeholder each attribute of `entity` can hold while a partial fetch leaves it out,
    /// by property index; nil for a property that is always read.
    static func placeholders(of entity: Schema.Entity) -> [SQLValue?] {
        entity.metadata.indices.map { index in
            let property = entity.metadata[index]
            guard entity.relationshipsByColumn[index] == nil, property.isStoredInTable, let codec = property.codec else {
                return nil
            }
            let zero: SQLValue =
                switch codec.affinity {
                case .integer: .integer(0)
                case .real: .real(0)
                case .text: .text("")
                case .blob: .blob(.init())
                }
            return [SQLValue.null, zero].first { (try? codec.decode($0)) != nil }
        }
    }
}

/// A stored row being loaded into a model: the engine passes it to the initializer ``Model()``
/// generates. Column 0 is the primary key; property `i` is column `i + 1`, or in a class
/// hierarchy's shared select list, where the entity's result columns say.
public struct ModelRow {
    let statement: Statement
    private(set) var entity: Schema.Entity
    /// The context loading the row, for relationships that must load with it. Unowned and
    /// unchecked: a row exists only during one of that context's own calls.
    unowned(unsafe) let context: ModelContext
    /// The partial fetch the row is of, whose columns left out hold placeholders; nil for a row
    /// of every column. A reference, so that rows copy in generic code as cheaply as before.
    var partial: PartialFetch?

    /// The stored value of the property at `index`, decoded as its type. A relationship starts
    /// empty and loads on first read, except a required to-one, which loads now.
    /// - Throws: ``ModelKitError/storedValueMismatch(entity:property:expected:found:)`` when the
    ///   stored value cannot be that type.
    public func value<Value>(at index: Int) throws -> Value {
        if let relationship = entity.relationshipsByColumn[index] {
            return try relationshipValue(relationship, at: index) as! Value
        }
        return try entity.decode(statement.column(resultColumn(of: index)), at: index) as! Value
    }

    private func relationshipValue(_ relationship: RelationshipInfo, at index: Int) throws -> Any {
        guard case .toOne(_, isOptional: false) = relationship.shape else { return relationship.access.placeholder }
        let stored = stored(at: index)
        guard case .integer(let key) = stored, let target = try context.model(of: relationship.target, rowID: key) else {
            throw mismatch(stored, at: index)
        }
        return target
    }

    /// The relationships of the row left to load on first read.
    var faults: ModelStorage.Faults? {
        var faults = ModelStorage.Faults()
        for (column, isToMany) in entity.lazyRelationships {
            if isToMany {
                faults.append(.toMany, at: column)
            } else if case .integer(let key) = stored(at: column) {
                faults.append(.toOne(key), at: column)
            }
        }
        return faults.isEmpty ? nil : faults
    }

    /// ``value(at:)`` for a primitive: chosen at compile time and inlined into the model, it
    /// skips the codec.
    @inlinable
    public func value<Value: ColumnConvertible>(at index: Int) throws -> Value {
        let stored = self.stored(at: index)
        guard let value = Value(sqlValue: stored) else { throw mismatch(stored, at: index) }
        return value
    }

    /// ``value(at:)`` for an optional primitive: chosen at compile time and inlined into the
    /// model, it skips the codec.
    @inlinable
    public func value<Wrapped: ColumnConvertible>(at index: Int) throws -> Wrapped? {
        let stored = self.stored(at: index)
        if case .null = stored { return nil }
        guard let value = Wrapped(sqlValue: stored) else { throw mismatch(stored, at: index) }
        return value
    }

    /// ``value(at:)`` for an optional to-one: empty until first read, which loads it.
    @inlinable
    public func value<Target: PersistentModel>(at index: Int) throws -> Target? { nil }

    /// ``value(at:)`` for a to-many: empty until first read, which loads it.
    @inlinable
    public func value<Target: PersistentModel>(at index: Int) throws -> [Target] { [] }

    @usableFromInline
    func stored(at index: Int) -> SQLValue {
        if let ephemeral = entity.ephemeralValues, let value = ephemeral[index] { return value }
        let value = statement.column(resultColumn(of: index))
        // An external value's row holds its file's name; a missing file stays a name, and the
        // property's decoding reports the mismatch.
        if !entity.externalColumns.isEmpty, case .text(let name) = value, entity.externalColumns.contains(index),
            let data = context.container.store(for: entity).externalFiles?.read(name)
        {
            return .blob(data)
        }
        return value
    }

    @usableFromInline
    func mismatch(_ value: SQLValue, at index: Int) -> ModelKitError {
        entity.mismatch(value, at: index)
    }

    /// The result column of the property at `index`; outside a hierarchy, found without reading
    /// the entity's list (and counting a reference to it).
    @usableFromInline
    func resultColumn(of index: Int) -> Int32 {
        entity.isInHierarchy ? entity.resultColumns[index] : Int32(index + 1)
    }

    var primaryKey: Int64 {
        statement.int64(at: 0)
    }

    /// The row as one of the class it holds, when that is a subclass of the entity it was read
    /// as: a row of a class hierarchy's select names its class in `_type`. Nil otherwise, so that
    /// the common row is never copied.
    var asSubclass: ModelRow? {
        guard entity.isInHierarchy else { return nil }
        let concrete = entity.concreteEntity(of: statement)
        guard concrete !== entity else { return nil }
        var row = self
        row.entity = concrete
        return row
    }
}

extension Schema.Entity {
    /// Decodes a stored value of the property at `index`, naming the model and property on failure.
    func decode(_ value: SQLValue, at index: Int) throws -> Any {
        do {
            return try columns[index].codec.decode(value)
        } catch is ValueCodec.Mismatch {
            throw mismatch(value, at: index)
        }
    }

    /// The error for a stored value the property at `index` cannot hold.
    func mismatch(_ value: SQLValue, at index: Int) -> ModelKitError {
        let property = properties[index]
        return .storedValueMismatch(
            entity: name, property: property.name, expected: String(describing: property.valueType), found: "\(value)")
    }
}

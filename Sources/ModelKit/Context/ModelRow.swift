/// A stored row being loaded into a model: the engine passes it to the initializer ``Model()``
/// generates. Column 0 is the primary key; property `i` is column `i + 1`.
public struct ModelRow {
    let statement: Statement
    let entity: Schema.Entity

    /// The stored value of the property at `index`, decoded as its type.
    /// - Throws: ``ModelKitError/storedValueMismatch(entity:property:expected:found:)`` when the
    ///   stored value cannot be that type.
    public func value<Value>(at index: Int) throws -> Value {
        try entity.decode(statement.column(Int32(index + 1)), at: index) as! Value
    }

    var primaryKey: Int64 {
        statement.int64(at: 0)
    }
}

extension Schema.Entity {
    /// Decodes a stored value of the property at `index`, naming the model and property on failure.
    func decode(_ value: SQLValue, at index: Int) throws -> Any {
        let property = properties[index]
        do {
            return try property.codec!.decode(value)
        } catch let mismatch as ValueCodec.Mismatch {
            throw ModelKitError.storedValueMismatch(
                entity: name, property: property.name, expected: mismatch.expected, found: "\(mismatch.found)")
        }
    }
}

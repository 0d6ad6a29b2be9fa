import Foundation

/// A value as SQLite stores it.
public enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// The stored form of a property value, for the code ``Model()`` generates. Every overload is
/// `throws`, so the generated `try` is never redundant, whichever one the property's type picks.
extension SQLValue {
    /// The stored form of a primitive property value.
    @inlinable
    public static func _encode<Value: ColumnConvertible>(_ value: Value) throws -> SQLValue {
        value.sqlValue
    }

    /// The stored form of an optional primitive property value.
    @inlinable
    public static func _encode<Wrapped: ColumnConvertible>(_ value: Wrapped?) throws -> SQLValue {
        value?.sqlValue ?? .null
    }

    /// The stored form of a required to-one: the target's primary key, NULL while it is unsaved.
    public static func _encode<Model: PersistentModel>(_ value: Model) throws -> SQLValue {
        value._$modelKit.rowID.map(SQLValue.integer) ?? .null
    }

    /// The stored form of an optional to-one: the target's primary key, or NULL.
    public static func _encode<Model: PersistentModel>(_ value: Model?) throws -> SQLValue {
        value?._$modelKit.rowID.map(SQLValue.integer) ?? .null
    }

    /// The stored form of any other property value: enums, `Codable` values, their optionals.
    public static func _encode<Value>(_ value: Value) throws -> SQLValue {
        guard let codec = ValueCodec.make(for: Value.self) else {
            throw ModelKitError.unsupportedPropertyType(entity: "?", property: "?", type: String(reflecting: Value.self))
        }
        return try codec.encode(value)
    }
}

/// The storage class a column is declared with.
enum ColumnAffinity: String, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"

    /// The affinity as a storage kind: `integer`, `real`, `text` or `blob`.
    var kind: String { rawValue.lowercased() }
}

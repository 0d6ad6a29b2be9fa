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
package enum ColumnAffinity: String, Sendable {
    case integer = "INTEGER"
    case real = "REAL"
    case text = "TEXT"
    case blob = "BLOB"

    /// The affinity as a storage kind: `integer`, `real`, `text` or `blob`.
    var kind: String { rawValue.lowercased() }
}

extension SQLValue {
    /// Primary keys as one JSON array, bound as one parameter where
    /// ``SQLDialect/isAmongBoundKeys(_:)`` tests a column against them.
    ///
    /// The digits go straight into one buffer: a prefetch binds thousands of keys, and a `String`
    /// a key, joined, cost about 900 instructions each.
    static func keyArray(_ keys: [Int64]) -> SQLValue {
        var text: [UInt8] = []
        text.reserveCapacity(2 + keys.count * 21)
        text.append(UInt8(ascii: "["))
        for key in keys {
            if text.count > 1 { text.append(UInt8(ascii: ",")) }
            if key < 0 { text.append(UInt8(ascii: "-")) }
            let first = text.count
            var magnitude = key.magnitude
            repeat {
                text.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10))
                magnitude /= 10
            } while magnitude > 0
            // In place: reversing `text[first...]` copies the slice.
            var (low, high) = (first, text.count - 1)
            while low < high {
                text.swapAt(low, high)
                (low, high) = (low + 1, high - 1)
            }
        }
        text.append(UInt8(ascii: "]"))
        return .text(String(decoding: text, as: UTF8.self))
    }
}

extension SQLValue {
    /// How SQLite orders this value against `other` (`ORDER BY`, binary collation): NULL first,
    /// then numbers by value, then text and blobs byte by byte.
    func sqliteOrder(comparedTo other: SQLValue) -> ComparisonResult {
        func compare<C: Comparable>(_ a: C, _ b: C) -> ComparisonResult {
            a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
        }
        func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> ComparisonResult {
            a.lexicographicallyPrecedes(b) ? .orderedAscending : (b.lexicographicallyPrecedes(a) ? .orderedDescending : .orderedSame)
        }
        switch (self, other) {
        case (.integer(let a), .integer(let b)): return compare(a, b)
        case (.real(let a), .real(let b)): return compare(a, b)
        case (.integer(let a), .real(let b)): return compare(Double(a), b)
        case (.real(let a), .integer(let b)): return compare(a, Double(b))
        case (.text(let a), .text(let b)): return bytes(a.utf8, b.utf8)
        case (.blob(let a), .blob(let b)): return bytes(a, b)
        default: return compare(rank, other.rank)
        }
    }

    /// The order of SQLite's storage classes when values of two of them are compared.
    private var rank: Int {
        switch self {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
}

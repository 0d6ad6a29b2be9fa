import CLibPQ
import Foundation
import ModelKit

/// How ModelKit's values (SQLite's five kinds) travel to and from PostgreSQL's types.
enum PostgresValue {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let name: Oid = 19
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let varchar: Oid = 1043
    static let numeric: Oid = 1700

    /// The type to declare for a parameter when preparing: the value's own for numbers and text;
    /// none for NULL and blobs (a NaN `Double` travels as a blob), so PostgreSQL takes the
    /// column's.
    static func declaredType(of value: SQLValue) -> Oid {
        switch value {
        case .integer: int8
        case .real: float8
        case .text: text
        case .null, .blob: 0
        }
    }

    /// The type to declare where PostgreSQL cannot tell one from the context.
    static func fallbackType(of value: SQLValue) -> Oid {
        switch value {
        case .blob: bytea
        case .null: text
        default: declaredType(of: value)
        }
    }

    /// A double as PostgreSQL's `float8` input reads it back, exactly but for a NaN's payload.
    static func doubleText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }

    /// A column's text (libpq's text format) as the value SQLite would hold.
    static func decode(_ text: String, type: Oid) -> SQLValue {
        switch type {
        case bool: return .integer(text == "t" ? 1 : 0)
        case int8, int4, int2, oid: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case float8, float4: return Double(text).map(SQLValue.real) ?? .text(text)
        case numeric: return Int64(text).map(SQLValue.integer) ?? Double(text).map(SQLValue.real) ?? .text(text)
        case bytea: return .blob(hexBytes(text))
        default: return .text(text)
        }
    }

    /// Whether results with a column of `type` can come in binary form: ``decode(binary:type:)``
    /// reads it. Binary keeps every `float8` bit, where text reads every NaN as the same one.
    static func readsBinary(_ type: Oid) -> Bool {
        switch type {
        case bool, bytea, int8, int2, int4, oid, float4, float8, text, varchar, name: true
        default: false
        }
    }

    /// A column's binary form (of a type ``readsBinary(_:)`` accepts) as the value SQLite would
    /// hold.
    static func decode(binary bytes: UnsafeRawBufferPointer, type: Oid) -> SQLValue {
        func load<T: FixedWidthInteger>(_: T.Type) -> T { T(bigEndian: bytes.loadUnaligned(as: T.self)) }
        switch type {
        case bool: return .integer(bytes.first == 0 ? 0 : 1)
        case int8: return .integer(load(Int64.self))
        case int4: return .integer(Int64(load(Int32.self)))
        case int2: return .integer(Int64(load(Int16.self)))
        case oid: return .integer(Int64(load(UInt32.self)))
        case float8: return .real(Double(bitPattern: load(UInt64.self)))
        case float4: return .real(Double(Float(bitPattern: load(UInt32.self))))
        case bytea: return .blob(Data(bytes))
        default: return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The bytes of `bytea`'s hex output, `\x0a1b…`.
    private static func hexBytes(_ text: String) -> Data {
        var data = Data()
        let digits = Array(text.utf8.dropFirst(2))
        data.reserveCapacity(digits.count / 2)
        var index = 0
        while index + 1 < digits.count {
            data.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return data
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: digit &- UInt8(ascii: "A") &+ 10
        }
    }
}

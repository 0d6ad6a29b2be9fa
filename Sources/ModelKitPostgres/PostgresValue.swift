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

    /// A rendered parameter: its bytes (nil for NULL) and whether they are binary.
    struct Parameter {
        var bytes: [UInt8]?
        var isBinary = false
    }

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

    /// `value` rendered for a parameter of `type`.
    static func parameter(_ value: SQLValue, type: Oid, sql: String) throws -> Parameter {
        switch value {
        case .null:
            return Parameter(bytes: nil)
        case .integer(let integer):
            if type == bool { return Parameter(bytes: Array((integer != 0 ? "t" : "f").utf8)) }
            return Parameter(bytes: Array(String(integer).utf8))
        case .real(let real):
            if [int8, int4, int2].contains(type), real.rounded() == real, let integer = Int64(exactly: real) {
                return Parameter(bytes: Array(String(integer).utf8))
            }
            if type == float8 { return float8Parameter(real) }
            return Parameter(bytes: Array(doubleText(real).utf8))
        case .text(let string):
            guard !string.utf8.contains(0) else {
                throw PostgresError(kind: .valueNotStorable, message: "PostgreSQL text cannot contain NUL characters", sql: sql)
            }
            return Parameter(bytes: Array(string.utf8))
        case .blob(let data):
            if type == float8 || type == float4, data.count == 8, let double = Double(sqlValue: value) {
                return type == float8 ? float8Parameter(double) : Parameter(bytes: Array(doubleText(double).utf8))
            }
            if type == bytea { return Parameter(bytes: Array(data), isBinary: true) }
            return Parameter(bytes: hexText(data))
        }
    }

    /// `data` in `bytea`'s hex text form, `\x0a1b…`.
    static func hexText(_ data: Data) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + data.count * 2)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }

    /// A double in `float8`'s binary form, its bits big-endian: a NaN keeps its payload and
    /// sign, which the text form (`NaN`) drops.
    private static func float8Parameter(_ value: Double) -> Parameter {
        Parameter(bytes: withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init), isBinary: true)
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

    /// Calls `body` with libpq's parameter arrays for `parameters`.
    static func withParameters<R>(
        _ parameters: [Parameter],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> R
    ) rethrows -> R {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        buffers.reserveCapacity(parameters.count)
        defer { buffers.forEach { $0?.deallocate() } }
        for parameter in parameters {
            guard let bytes = parameter.bytes else {
                buffers.append(nil)
                continue
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress ?? UnsafeRawPointer(buffer), byteCount: bytes.count)
            }
            buffer[bytes.count] = 0
            buffers.append(buffer)
        }
        let pointers = buffers.map { UnsafePointer($0) }
        let lengths = parameters.map { Int32($0.bytes?.count ?? 0) }
        let formats = parameters.map { Int32($0.isBinary ? 1 : 0) }
        return try pointers.withUnsafeBufferPointer { pointers in
            try lengths.withUnsafeBufferPointer { lengths in
                try formats.withUnsafeBufferPointer { formats in
                    try body(pointers.baseAddress, lengths.baseAddress, formats.baseAddress)
                }
            }
        }
    }
}

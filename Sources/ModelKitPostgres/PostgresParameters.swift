import CLibPQ
import Foundation
import ModelKit

/// A statement's bound values rendered for libpq's three parameter arrays: every value's bytes in
/// one buffer, each followed by a NUL, and the arrays on the stack. Rendering each value into
/// bytes of its own, copied into a buffer of its own, with three arrays beside them, cost a write
/// about twenty-four allocations.
extension PostgresValue {
    /// Calls `body` with libpq's values, lengths and formats for `count` parameters of `types`,
    /// bound to `values` (NULL past their end).
    /// - Throws: ``PostgresError`` of kind `valueNotStorable` for text with a NUL character,
    ///   which PostgreSQL's text cannot hold.
    static func withParameters<R>(
        _ values: [SQLValue], types: [Oid], count: Int, sql: String,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> R
    ) throws -> R {
        var bytes: [UInt8] = []
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { offsets in
            try withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { lengths in
                try withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { formats in
                    for index in 0..<count {
                        let start = bytes.count
                        let value = index < values.count ? values[index] : .null
                        guard let isBinary = try render(value, type: types[index], sql: sql, into: &bytes) else {
                            (offsets[index], lengths[index], formats[index]) = (-1, 0, 0)
                            continue
                        }
                        (offsets[index], lengths[index], formats[index]) = (start, Int32(bytes.count - start), isBinary ? 1 : 0)
                        bytes.append(0)
                    }
                    return try bytes.withUnsafeBufferPointer { buffer in
                        try withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { pointers in
                            // A value's offset is at least 0 only when the buffer holds its bytes.
                            let base = UnsafeRawPointer(buffer.baseAddress)
                            for index in 0..<count {
                                pointers[index] = offsets[index] < 0 ? nil : (base! + offsets[index]).assumingMemoryBound(to: CChar.self)
                            }
                            return try body(UnsafePointer(pointers.baseAddress), UnsafePointer(lengths.baseAddress), UnsafePointer(formats.baseAddress))
                        }
                    }
                }
            }
        }
    }

    /// Appends `value` rendered for a parameter of `type` to `bytes`; returns whether the bytes
    /// are binary, or nil for NULL, which appends nothing.
    private static func render(_ value: SQLValue, type: Oid, sql: String, into bytes: inout [UInt8]) throws -> Bool? {
        switch value {
        case .null:
            return nil
        case .integer(let integer):
            if type == bool {
                bytes.append(integer != 0 ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            } else {
                bytes.append(contentsOf: String(integer).utf8)
            }
            return false
        case .real(let real):
            if type == int8 || type == int4 || type == int2, real.rounded() == real, let integer = Int64(exactly: real) {
                bytes.append(contentsOf: String(integer).utf8)
                return false
            }
            return appendDouble(real, as: type, to: &bytes)
        case .text(let string):
            guard !string.utf8.contains(0) else {
                throw PostgresError(kind: .valueNotStorable, message: "PostgreSQL text cannot contain NUL characters", sql: sql)
            }
            bytes.append(contentsOf: string.utf8)
            return false
        case .blob(let data):
            // A NaN or negative zero `Double` travels as its eight bytes (see `Double.sqlValue`).
            if type == float8 || type == float4, data.count == 8, let double = Double(sqlValue: value) {
                return appendDouble(double, as: type, to: &bytes)
            }
            if type == bytea {
                bytes.append(contentsOf: data)
                return true
            }
            appendHex(data, to: &bytes)
            return false
        }
    }

    /// Appends a double: for `float8`, its bits big-endian in the binary form, so that a NaN
    /// keeps its payload and sign, which the text form (`NaN`) drops; else as text. Returns
    /// whether it is binary.
    private static func appendDouble(_ value: Double, as type: Oid, to bytes: inout [UInt8]) -> Bool {
        guard type == float8 else {
            bytes.append(contentsOf: doubleText(value).utf8)
            return false
        }
        withUnsafeBytes(of: value.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
        return true
    }

    /// Appends `data` in `bytea`'s hex text form, `\x0a1b…`.
    private static func appendHex(_ data: Data, to bytes: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        bytes.reserveCapacity(bytes.count + 2 + data.count * 2)
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x")])
        digits.withUTF8Buffer { digits in
            for byte in data {
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0f)])
            }
        }
    }
}

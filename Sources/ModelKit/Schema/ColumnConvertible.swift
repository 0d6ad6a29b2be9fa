import Foundation

/// A type stored in one SQLite column as a primitive: numbers, strings, dates, data, UUIDs, URLs.
///
/// Each conversion round-trips exactly: `Date` keeps its full `Double`, `UInt64` its bit pattern,
/// `Decimal` its decimal text. SQLite turns a NaN into NULL and a negative zero into zero, so those
/// two doubles are stored as the eight bytes of their bit pattern.
public protocol ColumnConvertible {
    /// Decodes a stored value, or returns nil if it is not one this type could have written.
    init?(sqlValue: SQLValue)
    /// The value to store.
    var sqlValue: SQLValue { get }
    /// What this type's placeholder decodes to while a partial fetch leaves a property of it out
    /// (the zero of its storage), or nil where the type has none to give without decoding: a
    /// partial fetch's rows take it without a lookup or a decode (see ``ModelRow``).
    static var _modelKitPlaceholder: Self? { get }
}

extension ColumnConvertible {
    public static var _modelKitPlaceholder: Self? { nil }
}

extension ColumnConvertible {
    static var affinity: ColumnAffinity {
        switch self {
        case is Bool.Type, is any FixedWidthInteger.Type: .integer
        case is Double.Type, is Float.Type, is Date.Type: .real
        case is Data.Type: .blob
        default: .text
        }
    }
}

extension Bool: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value != 0
    }
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public static var _modelKitPlaceholder: Bool? { false }
}

/// Signed integers up to 64 bits store their value; unsigned ones their bit pattern as an Int64.
extension ColumnConvertible where Self: FixedWidthInteger {
    public init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        if Self.isSigned {
            guard let exact = Self(exactly: value) else { return nil }
            self = exact
        } else {
            guard let exact = Self(exactly: UInt64(bitPattern: value)) else { return nil }
            self = exact
        }
    }
    public var sqlValue: SQLValue {
        .integer(Self.isSigned ? Int64(self) : Int64(bitPattern: UInt64(self)))
    }
    public static var _modelKitPlaceholder: Self? { 0 }
}

extension Int: ColumnConvertible {}
extension Int8: ColumnConvertible {}
extension Int16: ColumnConvertible {}
extension Int32: ColumnConvertible {}
extension Int64: ColumnConvertible {}
extension UInt: ColumnConvertible {}
extension UInt8: ColumnConvertible {}
extension UInt16: ColumnConvertible {}
extension UInt32: ColumnConvertible {}
extension UInt64: ColumnConvertible {}

extension Double: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        case .blob(let data) where data.count == 8:
            self = Double(bitPattern: data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian)
        default: return nil
        }
    }
    public var sqlValue: SQLValue {
        guard isNaN || (self == 0 && sign == .minus) else { return .real(self) }
        return .blob(withUnsafeBytes(of: bitPattern.littleEndian) { Data($0) })
    }
    public static var _modelKitPlaceholder: Double? { 0 }
}

extension Float: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard let double = Double(sqlValue: sqlValue) else { return nil }
        self = Float(double)
    }
    public var sqlValue: SQLValue { Double(self).sqlValue }
    public static var _modelKitPlaceholder: Float? { 0 }
}

extension String: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard case .text(let value) = sqlValue else { return nil }
        self = value
    }
    public var sqlValue: SQLValue { .text(self) }
    public static var _modelKitPlaceholder: String? { "" }
}

extension Date: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard let seconds = Double(sqlValue: sqlValue) else { return nil }
        self.init(timeIntervalSinceReferenceDate: seconds)
    }
    public var sqlValue: SQLValue { timeIntervalSinceReferenceDate.sqlValue }
    public static var _modelKitPlaceholder: Date? { Date(timeIntervalSinceReferenceDate: 0) }
}

extension Data: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard case .blob(let value) = sqlValue else { return nil }
        self = value
    }
    public var sqlValue: SQLValue { .blob(self) }
    public static var _modelKitPlaceholder: Data? { Data() }
}

extension UUID: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
    public var sqlValue: SQLValue { .text(uuidString) }
}

extension URL: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue, let url = URL(string: text) else { return nil }
        self = url
    }
    public var sqlValue: SQLValue { .text(absoluteString) }
}

extension Decimal: ColumnConvertible {
    public init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        self = decimal
    }
    public var sqlValue: SQLValue { .text(NSDecimalNumber(decimal: self).description(withLocale: Locale(identifier: "en_US_POSIX"))) }
}

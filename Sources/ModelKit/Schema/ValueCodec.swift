import Foundation
import Synchronization

/// How one Swift type is stored in a column: primitives directly, `RawRepresentable` enums by raw
/// value, other `Codable` values as JSON text, and `Optional`s of any of these as nullable columns.
/// Codecs are made once per type and shared.
final class ValueCodec: @unchecked Sendable {
    /// The column's declared type.
    let affinity: ColumnAffinity
    /// Whether the column may hold NULL.
    let isOptional: Bool
    /// The stored Swift type without its `Optional`, as earlier releases recorded it in the store.
    /// Read only to recognise those stores.
    let storedTypeName: String
    /// How the value is stored, independent of Swift type and module names (`integer`,
    /// `text/json`, `integer/bit-pattern`, …): recorded in the store to detect changes that need a
    /// migration, and the same on every platform and toolchain.
    let storageKind: String
    let decode: (SQLValue) throws -> Any
    let encode: (Any) throws -> SQLValue

    /// Thrown when a stored value cannot be the expected type; the caller adds the model and property.
    struct Mismatch: Error {
        let expected: String
        let found: SQLValue
    }

    init(
        affinity: ColumnAffinity, isOptional: Bool, storedTypeName: String, storageKind: String,
        decode: @escaping (SQLValue) throws -> Any, encode: @escaping (Any) throws -> SQLValue
    ) {
        self.affinity = affinity
        self.isOptional = isOptional
        self.storedTypeName = storedTypeName
        self.storageKind = storageKind
        self.decode = decode
        self.encode = encode
    }

    private static let cache = Mutex<[ObjectIdentifier: ValueCodec?]>([:])

    /// The codec for `type`, or nil if ModelKit cannot store it.
    static func make(for type: Any.Type) -> ValueCodec? {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let codec = build(for: type)
        cache.withLock { $0[key] = codec }
        return codec
    }

    private static func build(for type: Any.Type) -> ValueCodec? {
        if let shape = RelationshipShape(type) {
            return relationshipCodec(shape)
        }
        if let optional = type as? any OptionalProtocol.Type {
            return optionalCodec(optional)
        }
        if let primitive = type as? any ColumnConvertible.Type {
            return primitiveCodec(primitive)
        }
        if let raw = type as? any RawRepresentable.Type, let codec = rawCodec(raw) {
            return codec
        }
        if let codable = type as? any Codable.Type {
            return jsonCodec(codable)
        }
        return nil
    }

    /// A to-one stores the target's primary key (NULL until the target is saved); a to-many stores
    /// nothing in its owner's row. Loading goes through the context, not this codec.
    private static func relationshipCodec(_ shape: RelationshipShape) -> ValueCodec {
        let isToMany = shape.isToMany
        let decode: (SQLValue) throws -> Any = { _ in throw Mismatch(expected: "a relationship", found: .null) }
        let encode: (Any) throws -> SQLValue = { value in
            guard !isToMany, let target = primaryKey(of: value) else { return .null }
            return .integer(target)
        }
        return ValueCodec(
            affinity: .integer, isOptional: true, storedTypeName: "relationship to \(shape.target)",
            storageKind: isToMany ? "relationship/to-many" : "relationship/to-one",
            decode: decode, encode: encode)
    }

    /// The primary key of a to-one's value: a model, or an optional one; nil while unsaved.
    private static func primaryKey(of value: Any) -> Int64? {
        if let optional = value as? any OptionalProtocol {
            return optional.wrapped.flatMap(primaryKey(of:))
        }
        return (value as? any PersistentModel)?._$modelKit.rowID
    }

    private static func primitiveCodec<T: ColumnConvertible>(_ type: T.Type) -> ValueCodec {
        let kind: String
        switch T.self {
        case is any UnsignedInteger.Type: kind = "\(T.affinity.kind)/bit-pattern"
        case is Decimal.Type: kind = "text/decimal"
        case is any BinaryFloatingPoint.Type: kind = "real/bit-pattern-nan"
        default: kind = T.affinity.kind
        }
        return ValueCodec(
            affinity: T.affinity, isOptional: false, storedTypeName: String(reflecting: T.self), storageKind: kind,
            decode: { value in
                guard let decoded = T(sqlValue: value) else { throw Mismatch(expected: "\(T.self)", found: value) }
                return decoded
            },
            encode: { ($0 as! T).sqlValue })
    }

    private static func rawCodec<T: RawRepresentable>(_ type: T.Type) -> ValueCodec? {
        guard let raw = make(for: T.RawValue.self), !raw.isOptional, T.RawValue.self is any ColumnConvertible.Type else {
            return nil
        }
        return ValueCodec(
            affinity: raw.affinity, isOptional: false, storedTypeName: String(reflecting: T.self),
            storageKind: "\(raw.storageKind)/raw-value",
            decode: { value in
                guard let rawValue = try? raw.decode(value) as? T.RawValue, let decoded = T(rawValue: rawValue) else {
                    throw Mismatch(expected: "\(T.self)", found: value)
                }
                return decoded
            },
            encode: { try raw.encode(($0 as! T).rawValue) })
    }

    private static func jsonCodec<T: Codable>(_ type: T.Type) -> ValueCodec {
        ValueCodec(
            affinity: .text, isOptional: false, storedTypeName: String(reflecting: T.self), storageKind: "text/json",
            decode: { value in
                guard case .text(let json) = value,
                    let decoded = try? JSONCoding.decoder.decode(T.self, from: Data(json.utf8))
                else { throw Mismatch(expected: "\(T.self) as JSON", found: value) }
                return decoded
            },
            encode: { .text(String(decoding: try JSONCoding.encoder.encode($0 as! T), as: UTF8.self)) })
    }

    private static func optionalCodec<T: OptionalProtocol>(_ type: T.Type) -> ValueCodec? {
        guard let wrapped = make(for: T.wrappedType), !wrapped.isOptional else { return nil }
        return ValueCodec(
            affinity: wrapped.affinity, isOptional: true, storedTypeName: wrapped.storedTypeName,
            storageKind: wrapped.storageKind,
            decode: { value in value == .null ? T.nilValue : T(wrapping: try wrapped.decode(value)) },
            encode: { value in try (value as! T).wrapped.map(wrapped.encode) ?? .null })
    }
}

/// Lets the codec see through `Optional` at run time.
protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
    static var nilValue: Self { get }
    init(wrapping value: Any)
    var wrapped: Any? { get }
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }
    static var nilValue: Self { nil }
    init(wrapping value: Any) { self = .some(value as! Wrapped) }
    var wrapped: Any? { self.map { $0 } }
}

/// The JSON coders for `Codable` attributes. Non-finite numbers are written as strings, so that a
/// stored NaN or infinity round-trips instead of failing to encode.
enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()
}

import Foundation
import Synchronization

extension Schema.Attribute.Option {
    /// The value is stored as the `Data` an instance of `transformerType` makes of it, as in
    /// SwiftData: for types that are not `Codable`, such as `NSSecureCoding` classes. See
    /// ``ValueTransformerReference``.
    public static func transformable(by transformerType: ValueTransformer.Type) -> Schema.Attribute.Option {
        ._transformable(ValueTransformerReference(type: transformerType))
    }

    /// The value is stored as the `Data` the transformer registered as `transformerName` (with
    /// `ValueTransformer.setValueTransformer(_:forName:)`) makes of it, as in SwiftData.
    public static func transformable(by transformerName: String) -> Schema.Attribute.Option {
        ._transformable(ValueTransformerReference(name: transformerName))
    }

    /// The transformer of a `.transformable(by:)` option; nil for other options.
    var transformer: ValueTransformerReference? {
        if case ._transformable(let reference) = self { return reference }
        return nil
    }
}

/// A `.transformable(by:)` option's transformer: a class, made once, or a registered name,
/// looked up at each use.
///
/// Which way the transformer runs follows Core Data: an `NSSecureUnarchiveFromDataTransformer`
/// (which unarchives in ``ValueTransformer/transformedValue(_:)``) runs in reverse, archiving to
/// write and unarchiving to read; any other transformer makes the stored `Data` with
/// `transformedValue(_:)` and the value back with `reverseTransformedValue(_:)`.
public struct ValueTransformerReference: Hashable, @unchecked Sendable {
    // Unchecked: a metatype and a string; the instance is made under a lock.
    /// The transformer's class name, or its registered name.
    public let name: String
    private let type: ValueTransformer.Type?

    init(type: ValueTransformer.Type) {
        name = String(reflecting: type)
        self.type = type
    }

    init(name: String) {
        self.name = name
        type = nil
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    nonisolated(unsafe) private static var instances: [String: ValueTransformer] = [:]
    private static let lock = Mutex(())

    /// The transformer to use now, or nil when the name is not registered.
    var transformer: ValueTransformer? {
        guard let type else { return ValueTransformer(forName: NSValueTransformerName(rawValue: name)) }
        return Self.lock.withLock { _ in
            if let made = Self.instances[name] { return made }
            let made = type.init()
            Self.instances[name] = made
            return made
        }
    }

    /// `value` as the `Data` to store.
    func data(of value: Any) throws -> Data {
        let transformer = try resolved()
        let stored = transformer is NSSecureUnarchiveFromDataTransformer
            ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        guard let data = stored as? Data else {
            throw ModelKitError.valueNotStorable(
                entity: "?", property: "?", reason: "the transformer \(name) made \(stored.map { "a \(Swift.type(of: $0))" } ?? "nil") of a \(Swift.type(of: value)), not Data")
        }
        return data
    }

    /// The value stored as `data`, or nil when the transformer cannot make one.
    func value(of data: Data) throws -> Any? {
        let transformer = try resolved()
        return transformer is NSSecureUnarchiveFromDataTransformer
            ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
    }

    private func resolved() throws -> ValueTransformer {
        guard let transformer else {
            throw ModelKitError.valueNotStorable(
                entity: "?", property: "?",
                reason: "no value transformer is registered as \"\(name)\"; register one with ValueTransformer.setValueTransformer(_:forName:) first")
        }
        return transformer
    }
}

extension ValueCodec {
    /// The codec of a property of type `Value` stored through `reference`'s transformer, as a blob.
    static func transformed<Value>(by reference: ValueTransformerReference, as _: Value.Type) -> ValueCodec {
        let optional = Value.self as? any OptionalProtocol.Type
        return ValueCodec(
            affinity: .blob, isOptional: optional != nil, storedTypeName: String(reflecting: Value.self),
            storageKind: "blob/transformed",
            decode: { stored in
                if stored == .null, let optional { return optional.nilValue }
                guard case .blob(let data) = stored, let value = try reference.value(of: data) else {
                    throw Mismatch(expected: "\(Value.self) through \(reference.name)", found: stored)
                }
                if let optional { return optional.init(wrapping: value) }
                guard let typed = value as? Value else { throw Mismatch(expected: "\(Value.self) through \(reference.name)", found: stored) }
                return typed
            },
            encode: { value in
                let unwrapped: Any? = optional != nil ? (value as! any OptionalProtocol).wrapped : value
                guard let unwrapped else { return .null }
                return .blob(try reference.data(of: unwrapped))
            })
    }
}

extension SQLValue {
    /// The stored form of a `.transformable(by:)` property: the transformer's `Data`. Generated
    /// by ``Model()``; not for direct use.
    public static func _encode<Value>(_ value: Value, transformedBy option: Schema.Attribute.Option) throws -> SQLValue {
        guard let reference = option.transformer else { return try _encode(value) }
        return try ValueCodec.transformed(by: reference, as: Value.self).encode(value)
    }
}

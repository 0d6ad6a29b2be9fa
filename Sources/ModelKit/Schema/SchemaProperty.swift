/// A property of an entity, as SwiftData describes one: a ``Schema/Attribute``, a
/// ``Schema/Relationship``, or a ``Schema/CompositeAttribute``.
///
/// ``Schema/Entity/properties`` lists them. They describe the model; the engine reads its own
/// metadata from ``Model()``, so changing one changes no store.
public protocol SchemaProperty: Decodable, Encodable, Hashable {
    /// Whether the property is an attribute (stored value) rather than a relationship.
    var isAttribute: Bool { get }
    /// Whether the property's type is an `Optional`.
    var isOptional: Bool { get }
    /// Whether the property holds other models.
    var isRelationship: Bool { get }
    /// Whether the property is tracked but never stored (`.ephemeral`).
    var isTransient: Bool { get }
    /// Whether the property's values are unique across the entity's rows.
    var isUnique: Bool { get }
    /// The property's name, which is also its column name.
    var name: String { get set }
    /// The name the property was stored under before it was renamed; its name when it was not.
    var originalName: String { get set }
    /// The property's declared type.
    var valueType: any Any.Type { get }
}

/// How a property's type travels in an encoded schema: its mangled name, which the Swift runtime
/// turns back into the type in any process that has it.
enum SchemaValueType {
    static func encode(_ type: any Any.Type) -> String { _mangledTypeName(type) ?? String(reflecting: type) }

    static func decode(_ name: String, codingPath: [any CodingKey]) throws -> any Any.Type {
        guard let type = _typeByName(name) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath, debugDescription: "no type named \(name) in this process: the schema was saved by a program with other types"))
        }
        return type
    }
}

import Foundation

/// SwiftData's introspection of entities, attributes and relationships: lookups by name, the
/// kind of each property, and descriptions for debugging.
extension Schema.Entity: CustomDebugStringConvertible {
    /// The entity's properties, as SwiftData describes them, inherited ones first: an attribute
    /// or a relationship for each persisted property. Each read describes them anew.
    public var properties: [any SchemaProperty] {
        describedProperties ?? metadata.indices.map(describeProperty)
    }

    /// The stored properties that are not relationships.
    public var attributes: Set<Schema.Attribute> { Set(properties.compactMap { $0 as? Schema.Attribute }) }

    /// The relationship properties, with their destinations, delete rules and inverses.
    public var relationships: Set<Schema.Relationship> { Set(properties.compactMap { $0 as? Schema.Relationship }) }

    /// The properties the entity inherits from its superentity's model class.
    public var inheritedProperties: [any SchemaProperty] {
        guard let superentity else { return [] }
        return hasModelClass ? superentity.metadata.indices.map(describeProperty) : superentity.properties
    }

    /// ``inheritedProperties`` by name.
    public var inheritedPropertiesByName: [String: any SchemaProperty] { Self.byName(inheritedProperties, \.name) }

    /// The properties that have a value in the store: all but the `.ephemeral` (transient) ones.
    public var storedProperties: [any SchemaProperty] { properties.filter { !$0.isTransient } }

    /// ``storedProperties`` by name.
    public var storedPropertiesByName: [String: any SchemaProperty] { Self.byName(storedProperties, \.name) }

    /// `properties` by name, the first of a name where two share it.
    private static func byName<Property>(_ properties: some Sequence<Property>, _ name: (Property) -> String) -> [String: Property] {
        Dictionary(properties.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A new description of the persisted property at `index`.
    func describeProperty(_ index: Int) -> any SchemaProperty {
        let property = metadata[index]
        guard let info = relationshipsByColumn[index] else {
            let given = property.attribute
            return Schema.Attribute(
                name: property.name, originalName: given?.declaredOriginalName, options: given?.options ?? [],
                valueType: property.valueType, defaultValue: property.defaultValue, hashModifier: given?.hashModifier)
        }
        let given = property.relationship
        let relationship = Schema.Relationship(
            deleteRule: info.deleteRule, minimumModelCount: given?.minimumModelCount ?? 0,
            maximumModelCount: given?.maximumModelCount ?? 0, originalName: given?.declaredOriginalName,
            inverse: given?.inverseKeyPath, hashModifier: given?.hashModifier)
        relationship.options = given?.options ?? []
        (relationship.name, relationship.destination, relationship.inverseName) = (info.name, info.target.name, info.inverse?.name)
        (relationship.isToOneRelationship, relationship.keypath) = (!info.isToMany, property.keyPath)
        (relationship.valueType, relationship.isOptional) = (property.valueType, property.valueType is any OptionalProtocol.Type)
        return relationship
    }

    /// The entity's attributes by name.
    public var attributesByName: [String: Schema.Attribute] { Self.byName(attributes, \.name) }

    /// The entity's relationships by name.
    public var relationshipsByName: [String: Schema.Relationship] { Self.byName(relationships, \.name) }

    /// The groups of property names `#Index` indexes together.
    public var indices: [[String]] { hasModelClass ? indexes.map { $0.map(\.name) } : describedIndices }

    /// The entity's name, superentity and properties, for debugging.
    public var debugDescription: String {
        "Entity(\(name)\(superentityName.map { " : \($0)" } ?? ""), properties: \(properties.map(\.name)))"
    }
}

extension Schema: CustomDebugStringConvertible {
    /// The schema's version and entities, for debugging.
    public var debugDescription: String { "Schema(\(version), entities: \(entities.map(\.name)))" }
}

extension Schema.Attribute.Option: CustomDebugStringConvertible {
    public var debugDescription: String {
        switch self {
        case .unique: "unique"
        case .externalStorage: "externalStorage"
        case .allowsCloudEncryption: "allowsCloudEncryption"
        case .ephemeral: "ephemeral"
        case .spotlight: "spotlight"
        case .codable: "codable"
        case .preserveValueOnDeletion: "preserveValueOnDeletion"
        case ._transformable(let reference): "transformable(by: \(reference.name))"
        }
    }

    /// An option in an encoded schema: its name, and a transformer's name.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let simple: [Self] = [.unique, .externalStorage, .allowsCloudEncryption, .ephemeral, .spotlight, .codable, .preserveValueOnDeletion]
        if let option = simple.first(where: { $0.debugDescription == text }) {
            self = option
        } else if text.hasPrefix("transformable(by: "), text.hasSuffix(")") {
            let name = String(text.dropFirst("transformable(by: ".count).dropLast())
            self = (_typeByName(name) as? ValueTransformer.Type).map { .transformable(by: $0) } ?? .transformable(by: name)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no attribute option named \(text)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(debugDescription)
    }
}

extension DefaultHistoryUpdate {
    /// Whether the update changed the property at `keyPath`.
    public func containsAttribute(_ keyPath: any PartialKeyPath<Model> & Sendable) -> Bool {
        updatedAttributes.contains { $0 == keyPath as AnyKeyPath }
    }
}

extension ResultsObserver: CustomDebugStringConvertible {
    public var debugDescription: String {
        "ResultsObserver<\(Element.self)>(sortBy: \(fetchDescriptor.sortBy.count) descriptors, sectioned: \(sectionBy != nil))"
    }
}

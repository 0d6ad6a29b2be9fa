/// SwiftData's introspection of entities, attributes and relationships: lookups by name, the
/// kind of each property, and descriptions for debugging.
extension Schema.Entity: CustomDebugStringConvertible {
    /// The entity's attributes by name.
    public var attributesByName: [String: Schema.Attribute] {
        Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity's relationships by name.
    public var relationshipsByName: [String: Schema.Relationship] {
        Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The groups of property names `#Index` indexes together.
    public var indices: [[String]] { indexes.map { $0.map(\.name) } }

    /// The entity's name, superentity and properties, for debugging.
    public var debugDescription: String {
        "Entity(\(name)\(superentityName.map { " : \($0)" } ?? ""), properties: \(properties.map(\.name)))"
    }
}

extension Schema: CustomDebugStringConvertible {
    /// The schema's version and entities, for debugging.
    public var debugDescription: String { "Schema(\(version), entities: \(entities.map(\.name)))" }
}

extension Schema.Attribute: CustomDebugStringConvertible {
    /// Always true: an attribute is not a relationship.
    public var isAttribute: Bool { true }
    /// Always false.
    public var isRelationship: Bool { false }
    /// Whether the attribute is `.ephemeral`: tracked, never stored.
    public var isTransient: Bool { options.contains(.ephemeral) }
    /// Whether the attribute is stored through a value transformer (`.transformable(by:)`).
    public var isTransformable: Bool { options.contains { $0.transformer != nil } }
    /// Whether the attribute is stored in its encoded form (`.codable`).
    public var isCodable: Bool { options.contains(.codable) }

    public var debugDescription: String { "Attribute(\(name): \(valueType), options: \(options))" }
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
}

extension Schema.Relationship: CustomDebugStringConvertible {
    /// Always false: a relationship is not an attribute.
    public var isAttribute: Bool { false }
    /// Always true.
    public var isRelationship: Bool { true }
    /// Always false: relationships are stored.
    public var isTransient: Bool { false }
    /// Whether the relationship was declared `.unique`.
    public var isUnique: Bool { options.contains(.unique) }
    /// The key path of the relationship's inverse, if it was declared.
    public var inverseKeyPath: AnyKeyPath? { inverse }

    public var debugDescription: String {
        "Relationship(\(name) -> \(destination), deleteRule: \(deleteRule), inverse: \(inverseName ?? "none"))"
    }
}

extension DefaultHistoryUpdate {
    /// Whether the update changed the property at `keyPath`.
    public func containsAttribute(_ keyPath: any PartialKeyPath<Model> & Sendable) -> Bool {
        updatedAttributes.contains { $0 == keyPath as AnyKeyPath }
    }
}

/// A store that keeps a history, as SwiftData's custom stores declare it. ModelKit's own stores
/// answer history through ``ModelContext/fetchHistory(_:)``.
public protocol HistoryProviding {
    /// The type of the history's transactions.
    associatedtype HistoryType: HistoryTransaction
    /// The transactions `descriptor` describes.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]
    /// Deletes the transactions `descriptor` describes.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
    /// The type of the history's transactions.
    static var historyType: HistoryType.Type { get }
}

extension ResultsObserver: CustomDebugStringConvertible {
    public var debugDescription: String {
        "ResultsObserver<\(Element.self)>(sortBy: \(fetchDescriptor.sortBy.count) descriptors, sectioned: \(sectionBy != nil))"
    }
}

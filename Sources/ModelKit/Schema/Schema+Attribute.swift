extension Schema {
    /// A stored property that is not a relationship, as ``Schema/Entity/attributes`` lists it;
    /// also the configuration `@Attribute` gives a property (then with no name yet).
    ///
    /// A class, as in SwiftData: an entity's attributes are described once, and each is its own
    /// description (setting a member changes that description, not the store).
    public class Attribute: SchemaProperty, Codable, CustomDebugStringConvertible, @unchecked Sendable {
        // Unchecked: a description that is set up once and then read, as SwiftData's.

        /// What `@Attribute` can ask for.
        public enum Option: Hashable, Sendable, Codable {
            /// Inserting a model whose value for this property is already stored updates the stored
            /// row instead of adding one.
            case unique
            /// For `Data`: an on-disk store keeps values of 16 KiB or more in files beside it
            /// (`<store file>_external/`), written before the save commits and removed once a
            /// committed save, batch delete or `deleteAllData()` no longer needs them; smaller
            /// values, and stores in memory or in PostgreSQL, keep the value in the row.
            /// Predicates and sorts on the property run in Swift.
            case externalStorage
            /// Accepted for SwiftData compatibility; no effect here: ModelKit has no CloudKit sync.
            case allowsCloudEncryption
            /// Changes to the property are tracked (the context `hasChanges`, history lists them
            /// in `updatedAttributes`), but its value is never stored: models read from the store
            /// hold the property's default. It needs a default value, or an optional type.
            case ephemeral
            /// Accepted for SwiftData compatibility; no effect here: there is no Spotlight index.
            case spotlight
            /// The value is stored in its encoded (JSON) form, as ModelKit stores every `Codable`
            /// value that is not a primitive; predicates and sorts on it run in Swift.
            case codable
            /// A deleted model's value for this property is kept in the history, in the
            /// delete's ``HistoryTombstone``.
            case preserveValueOnDeletion
            /// Made by ``transformable(by:)-(ValueTransformer.Type)``: the value is stored as the `Data`
            /// a value transformer makes of it; predicates and sorts on it run in Swift.
            case _transformable(ValueTransformerReference)
        }

        /// The options given, such as `.unique`.
        public var options: [Option]
        /// The property's name; empty in the configuration `@Attribute` writes.
        public var name: String
        /// The property's declared type; `Any` in the configuration `@Attribute` writes.
        public var valueType: any Any.Type
        /// Whether the property is an `Optional`.
        public var isOptional: Bool
        /// The property's default value, as the model declares it, if any.
        public var defaultValue: Any?
        /// The `hashModifier:` given; accepted for SwiftData compatibility and unused.
        public var hashModifier: String?
        /// The `originalName:` given, if any: what migrations look for.
        var declaredOriginalName: String?

        /// The configuration `@Attribute(options…, originalName:hashModifier:)` describes.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            (self.options, name, valueType, isOptional) = (options, "", Any.self, false)
            (declaredOriginalName, self.hashModifier) = (originalName, hashModifier)
        }

        /// An attribute described in full, as a schema built by hand lists it.
        public init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            (self.options, self.name, self.valueType) = (options, name, valueType)
            isOptional = valueType is any OptionalProtocol.Type
            (self.defaultValue, declaredOriginalName, self.hashModifier) = (defaultValue, originalName, hashModifier)
        }

        /// The name the property was stored under before it was renamed; its name when it was not.
        public var originalName: String {
            get { declaredOriginalName ?? name }
            set { declaredOriginalName = newValue == name ? nil : newValue }
        }

        /// Whether inserting a model whose value is already stored updates the stored row.
        public var isUnique: Bool { options.contains(.unique) }
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

        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs === rhs
                || (type(of: lhs) == type(of: rhs) && lhs.name == rhs.name && lhs.options == rhs.options
                    && lhs.declaredOriginalName == rhs.declaredOriginalName && lhs.valueType == rhs.valueType
                    && lhs.isOptional == rhs.isOptional && lhs.hashModifier == rhs.hashModifier
                    && (lhs as? CompositeAttribute)?.properties == (rhs as? CompositeAttribute)?.properties)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(options)
        }

        enum CodingKeys: String, CodingKey {
            case name, originalName, options, valueType, isOptional, defaultValue, hashModifier
        }

        public required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            declaredOriginalName = try container.decodeIfPresent(String.self, forKey: .originalName)
            options = try container.decode([Option].self, forKey: .options)
            valueType = try SchemaValueType.decode(
                container.decode(String.self, forKey: .valueType), codingPath: container.codingPath + [CodingKeys.valueType])
            isOptional = try container.decode(Bool.self, forKey: .isOptional)
            hashModifier = try container.decodeIfPresent(String.self, forKey: .hashModifier)
            if let decodable = valueType as? any Decodable.Type, container.contains(.defaultValue) {
                defaultValue = try container.decode(decodable, forKey: .defaultValue)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(declaredOriginalName, forKey: .originalName)
            try container.encode(options, forKey: .options)
            try container.encode(SchemaValueType.encode(valueType), forKey: .valueType)
            try container.encode(isOptional, forKey: .isOptional)
            try container.encodeIfPresent(hashModifier, forKey: .hashModifier)
            if let encodable = defaultValue as? any Encodable { try container.encode(encodable, forKey: .defaultValue) }
        }
    }

    /// An attribute whose value is made of other attributes, as SwiftData describes a `Codable`
    /// struct stored field by field. ModelKit stores such a struct as one encoded value, so the
    /// entities it builds from model classes list plain attributes; this class describes
    /// composites in schemas built by hand or decoded.
    public final class CompositeAttribute: Attribute, @unchecked Sendable {
        /// The attributes the value is made of.
        public var properties: [Schema.Attribute] = []

        /// A composite attribute, whose ``properties`` are set next.
        public override init(
            name: String, originalName: String? = nil, options: [Schema.Attribute.Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            super.init(
                name: name, originalName: originalName, options: options, valueType: valueType, defaultValue: defaultValue,
                hashModifier: hashModifier)
        }

        private enum CompositeKeys: String, CodingKey { case properties }

        public required init(from decoder: any Decoder) throws {
            try super.init(from: decoder)
            properties = try decoder.container(keyedBy: CompositeKeys.self).decode([Schema.Attribute].self, forKey: .properties)
        }

        public override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CompositeKeys.self)
            try container.encode(properties, forKey: .properties)
        }

        public override var debugDescription: String {
            "CompositeAttribute(\(name): \(valueType), properties: \(properties.map(\.name)))"
        }
    }
}

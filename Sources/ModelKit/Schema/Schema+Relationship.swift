extension Schema {
    /// A property whose type is another model, or an array of one, as
    /// ``Schema/Entity/relationships`` lists it; also the configuration `@Relationship` gives a
    /// property (then with no name or destination yet).
    ///
    /// A class, as in SwiftData: each is its own description (setting a member changes that
    /// description, not the store).
    public final class Relationship: SchemaProperty, Codable, CustomDebugStringConvertible, @unchecked Sendable {
        // Unchecked: a description that is set up once and then read, as SwiftData's.

        /// What deleting a model does to the models it is related to through this property.
        public enum DeleteRule: String, Hashable, Sendable, Codable {
            /// Related models lose their reference to the deleted one. The default.
            case nullify
            /// Related models are deleted too, in the same save.
            case cascade
            /// Deleting a model that still has related models makes `save()` throw
            /// ``ModelKitError/deleteDenied(entity:relationship:)``, leaving the store unchanged.
            case deny
            /// Nothing happens to related models.
            case noAction
        }

        /// Accepted for SwiftData compatibility.
        public enum Option: Hashable, Sendable, Codable, CustomDebugStringConvertible {
            case unique

            public var debugDescription: String { "unique" }
        }

        /// What deleting the owner does to the related models.
        public var deleteRule: DeleteRule
        /// The key path of the property on the related model that points back, if declared.
        public var inverseKeyPath: AnyKeyPath?
        /// The key path of the property on its model class; nil in the configuration.
        public var keypath: AnyKeyPath?
        /// The options given.
        public var options: [Option]
        /// The counts given; accepted for SwiftData compatibility and not enforced.
        public var minimumModelCount: Int?
        public var maximumModelCount: Int?
        /// The `hashModifier:` given; accepted for SwiftData compatibility and unused.
        public var hashModifier: String?
        /// The property's name; empty in the configuration `@Relationship` writes.
        public var name = ""
        /// The name of the related model's entity; empty in the configuration.
        public var destination = ""
        /// The name of the related model's property that points back, declared or inferred.
        public var inverseName: String?
        /// Whether the property holds one model rather than an array.
        public internal(set) var isToOneRelationship = false
        /// Whether the property's type is an `Optional`: an optional to-one, or an optional array.
        public internal(set) var isOptional = false
        /// The property's declared type; `Any` in the configuration.
        public internal(set) var valueType: any Any.Type = Any.self
        /// The `originalName:` given, if any.
        var declaredOriginalName: String?

        /// The configuration `@Relationship(…)` describes.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            (self.deleteRule, inverseKeyPath, self.options) = (deleteRule, inverse, options)
            (self.minimumModelCount, self.maximumModelCount) = (minimumModelCount, maximumModelCount)
            (declaredOriginalName, self.hashModifier) = (originalName, hashModifier)
        }

        /// The name the property was stored under before it was renamed; its name when it was not.
        public var originalName: String {
            get { declaredOriginalName ?? name }
            set { declaredOriginalName = newValue == name ? nil : newValue }
        }

        /// The key path given as `inverse:`; the same as ``inverseKeyPath``.
        public var inverse: AnyKeyPath? { inverseKeyPath }
        /// Always false: a relationship is not an attribute.
        public var isAttribute: Bool { false }
        /// Always true.
        public var isRelationship: Bool { true }
        /// Always false: relationships are stored.
        public var isTransient: Bool { false }
        /// Whether the relationship was declared `.unique`.
        public var isUnique: Bool { options.contains(.unique) }

        public var debugDescription: String {
            "Relationship(\(name) -> \(destination), deleteRule: \(deleteRule), inverse: \(inverseName ?? "none"))"
        }

        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs === rhs
                || (lhs.name == rhs.name && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule
                    && lhs.inverseName == rhs.inverseName && lhs.isToOneRelationship == rhs.isToOneRelationship
                    && lhs.isOptional == rhs.isOptional && lhs.options == rhs.options
                    && lhs.declaredOriginalName == rhs.declaredOriginalName && lhs.hashModifier == rhs.hashModifier
                    && lhs.minimumModelCount == rhs.minimumModelCount && lhs.maximumModelCount == rhs.maximumModelCount)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(destination)
        }

        private enum CodingKeys: String, CodingKey {
            case name, originalName, options, deleteRule, destination, inverseName, isToOneRelationship, isOptional
            case minimumModelCount, maximumModelCount, hashModifier, valueType
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            declaredOriginalName = try container.decodeIfPresent(String.self, forKey: .originalName)
            options = try container.decode([Option].self, forKey: .options)
            deleteRule = try container.decode(DeleteRule.self, forKey: .deleteRule)
            destination = try container.decode(String.self, forKey: .destination)
            inverseName = try container.decodeIfPresent(String.self, forKey: .inverseName)
            isToOneRelationship = try container.decode(Bool.self, forKey: .isToOneRelationship)
            isOptional = try container.decode(Bool.self, forKey: .isOptional)
            minimumModelCount = try container.decodeIfPresent(Int.self, forKey: .minimumModelCount)
            maximumModelCount = try container.decodeIfPresent(Int.self, forKey: .maximumModelCount)
            hashModifier = try container.decodeIfPresent(String.self, forKey: .hashModifier)
            valueType = try SchemaValueType.decode(
                container.decode(String.self, forKey: .valueType), codingPath: container.codingPath + [CodingKeys.valueType])
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(declaredOriginalName, forKey: .originalName)
            try container.encode(options, forKey: .options)
            try container.encode(deleteRule, forKey: .deleteRule)
            try container.encode(destination, forKey: .destination)
            try container.encodeIfPresent(inverseName, forKey: .inverseName)
            try container.encode(isToOneRelationship, forKey: .isToOneRelationship)
            try container.encode(isOptional, forKey: .isOptional)
            try container.encodeIfPresent(minimumModelCount, forKey: .minimumModelCount)
            try container.encodeIfPresent(maximumModelCount, forKey: .maximumModelCount)
            try container.encodeIfPresent(hashModifier, forKey: .hashModifier)
            try container.encode(SchemaValueType.encode(valueType), forKey: .valueType)
        }
    }
}

/// What a property whose type involves other models holds, found from its type at run time.
enum RelationshipShape {
    /// A reference to one model, optional or not; stored as the target's primary key.
    case toOne(target: any PersistentModel.Type, isOptional: Bool)
    /// An array of models; stored on the other side or in a join table.
    case toMany(target: any PersistentModel.Type)

    init?(_ type: Any.Type) {
        if let target = type as? any PersistentModel.Type {
            self = .toOne(target: target, isOptional: false)
        } else if let optional = type as? any OptionalModel.Type {
            self = .toOne(target: optional.targetType, isOptional: true)
        } else if let array = type as? any ModelArray.Type {
            self = .toMany(target: array.targetType)
        } else if let array = type as? any OptionalModelArray.Type {
            self = .toMany(target: array.targetType)
        } else {
            return nil
        }
    }

    var target: any PersistentModel.Type {
        switch self {
        case .toOne(let target, _), .toMany(let target): target
        }
    }

    var isToMany: Bool {
        if case .toMany = self { return true }
        return false
    }
}

/// A relationship value that can be empty, whose target type the engine knows only at run time.
protocol RelationshipValue {
    static var targetType: any PersistentModel.Type { get }
    /// The value holding no model: an empty array, or nil.
    static var empty: Self { get }
}

/// An array of models: a to-many.
protocol ModelArray: RelationshipValue {
    /// `\Array<Element>.count` and `.isEmpty`, to recognize them in predicates.
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: RelationshipValue, ModelArray where Element: PersistentModel {
    static var targetType: any PersistentModel.Type { Element.self }
    static var empty: Self { [] }
    static var countKeyPath: AnyKeyPath { \Array<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array<Element>.isEmpty }
}

/// An optional model: an optional to-one.
protocol OptionalModel: RelationshipValue {}

extension Optional: RelationshipValue, OptionalModel where Wrapped: PersistentModel {
    static var targetType: any PersistentModel.Type { Wrapped.self }
    static var empty: Self { nil }
}

/// An optional array of models: a to-many too, as CloudKit asks for (`var children: [Child]? = []`).
/// nil and empty both hold no model; a loaded list is never nil.
protocol OptionalModelArray {
    static var targetType: any PersistentModel.Type { get }
    /// An empty list, what the property holds until it loads.
    static var emptyList: Self { get }
}

extension Optional: OptionalModelArray where Wrapped: ModelArray {
    static var targetType: any PersistentModel.Type { Wrapped.targetType }
    static var emptyList: Self { .some(Wrapped.empty) }
}

/// A collection of related models, as SwiftData names the type of a to-many: an array of models.
public protocol RelationshipCollection {
    /// The related model type.
    associatedtype PersistentElement: PersistentModel
}

extension Array: RelationshipCollection where Element: PersistentModel {
    public typealias PersistentElement = Element
}

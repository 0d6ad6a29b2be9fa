extension Schema {
    /// A property whose type is another model, or an array of one, as
    /// ``Schema/Entity/relationships`` lists it; also the configuration `@Relationship` gives a
    /// property (then with no name or destination yet).
    public struct Relationship: @unchecked Sendable, Hashable, CustomStringConvertible {
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
        public let deleteRule: DeleteRule
        /// The property on the related model that points back, if declared.
        public let inverse: AnyKeyPath?
        /// The options given.
        public let options: [Option]
        /// The counts given; accepted for SwiftData compatibility and not enforced.
        public let minimumModelCount: Int?
        public let maximumModelCount: Int?
        /// The names given; accepted for SwiftData compatibility and unused.
        public let originalName: String?
        public let hashModifier: String?
        /// The property's name; empty in the configuration `@Relationship` writes.
        public internal(set) var name = ""
        /// The name of the related model's entity; empty in the configuration.
        public internal(set) var destination = ""
        /// The name of the related model's property that points back, declared or inferred.
        public internal(set) var inverseName: String?
        /// Whether the property holds one model rather than an array.
        public internal(set) var isToOneRelationship = false

        /// The configuration `@Relationship(…)` describes.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.deleteRule = deleteRule
            self.inverse = inverse
            self.options = options
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.hashModifier = hashModifier
        }

        public var description: String { "Relationship(\(name) -> \(destination))" }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule
                && lhs.inverseName == rhs.inverseName && lhs.isToOneRelationship == rhs.isToOneRelationship
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(destination)
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

extension Schema {
    /// The configuration `@Relationship` gives a property whose type is another model, or an
    /// array of one.
    public struct Relationship: @unchecked Sendable {
        /// What deleting a model does to the models it is related to through this property.
        public enum DeleteRule: Hashable, Sendable {
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
        public enum Option: Hashable, Sendable {
            case unique
        }

        public let deleteRule: DeleteRule
        /// The property on the related model that points back, if declared.
        public let inverse: AnyKeyPath?

        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.deleteRule = deleteRule
            self.inverse = inverse
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
        } else if let optional = type as? any OptionalProtocol.Type, let target = optional.wrappedType as? any PersistentModel.Type {
            self = .toOne(target: target, isOptional: true)
        } else if let array = type as? any ModelArray.Type, let target = array.elementType as? any PersistentModel.Type {
            self = .toMany(target: target)
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

/// Lets the engine build and read arrays of models whose element type it knows only at run time.
protocol ModelArray {
    static var elementType: Any.Type { get }
    /// `\Array<Element>.count` and `.isEmpty`, to recognize them in predicates.
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
    init(models: [any PersistentModel])
    var models: [any PersistentModel] { get }
}

extension Array: ModelArray {
    static var elementType: Any.Type { Element.self }
    static var countKeyPath: AnyKeyPath { \Array<Element>.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array<Element>.isEmpty }
    init(models: [any PersistentModel]) { self = models.map { $0 as! Element } }
    var models: [any PersistentModel] { compactMap { $0 as? any PersistentModel } }
}

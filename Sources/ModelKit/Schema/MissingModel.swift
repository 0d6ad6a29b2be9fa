/// What ``ModelContext/model(for:)`` returns for an identifier with no stored row when the
/// identifier's model type cannot make an unsaved stand-in of itself (it has a required to-one,
/// or a required `Codable` value without a default). It has no properties; its
/// `persistentModelID` is the identifier asked for, and it is in no context. Casting it to the
/// expected model type fails, which is how to tell.
public final class MissingModel: PersistentModel {
    /// The engine's state: the identifier's entity, key and store.
    @exclusivity(unchecked) public final var _$modelKitState = ModelStorage.State()
    public var _$modelKit: ModelStorage { withUnsafeMutablePointer(to: &_$modelKitState) { ModelStorage(self, $0) } }

    init(identifier: PersistentIdentifier, entity: Schema.Entity?) {
        _$modelKit.entity = entity
        _$modelKit.answer(to: identifier)
    }

    /// Never used: a missing model is not loaded from a row.
    public init(_modelKitRow row: borrowing ModelRow) throws {}

    /// A missing model has no stored values.
    public func _modelKitValue(at column: Int) throws -> SQLValue { .null }

    /// A missing model has no persisted properties.
    public static var schemaMetadata: [Schema.PropertyMetadata] { [] }

    /// A missing model has no relationships.
    public func _modelKitModels(at column: Int) -> [any PersistentModel] { [] }

    /// A missing model has no relationships.
    public func _modelKitHolds(_ model: AnyObject, at column: Int) -> Bool { false }

    /// A missing model has no relationships.
    public func _modelKitSet(_ models: [any PersistentModel], at column: Int) {}

    /// It has no relationships.
    public func _modelKitInclude(_ model: AnyObject, _ isIncluded: Bool, at column: Int) -> Bool { false }
}

/// One version of an app's models, as in SwiftData: a version number and the model types of that
/// version. Versions may declare classes of the same name (`V1.Item`, `V2.Item`); they are the
/// same entity, `Item`.
///
/// ```swift
/// enum SchemaV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Item.self] }
///     @Model final class Item { var title: String; init(title: String) { self.title = title } }
/// }
/// ```
public protocol VersionedSchema: SendableMetatype {
    /// The version's number.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// How a store moves from each version of a schema to the next, as in SwiftData. Pass it to
/// `ModelContainer(for:migrationPlan:configurations:)`.
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between consecutive versions, in order.
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: Sendable {
    /// Automatic migration from one version to the next: new models and properties, renames
    /// through `originalName`, removed properties, added and removed constraints and indexes.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A migration with code of your own: `willMigrate` gets a context on the old version's models
    /// before the store changes shape, `didMigrate` one on the new version's models after.
    @preconcurrency case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }
}

extension Schema {
    /// The schema of one version's models.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

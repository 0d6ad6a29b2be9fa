import Foundation
import Synchronization

/// Owns the stores and the schema of the models in them; hands out contexts to read and write
/// them.
///
/// ```swift
/// let container = try ModelContainer(for: TodoItem.self)
/// let context = container.mainContext   // on the main actor
/// ```
///
/// Creating a container opens (or creates) the store and migrates it to the schema. It is
/// `Sendable`: share one container, and give each isolation domain its own ``ModelContext``.
public final class ModelContainer: Sendable, Equatable {
    /// The model types the container stores.
    public let schema: Schema
    /// The migration plan the container was created with; nil when none was given.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The SQLite configurations the container was created with (none for another database).
    public let configurations: Set<ModelConfiguration>
    /// The container's stores: one per configuration that holds models, in the order given.
    let stores: [Store]
    /// The name of each store's configuration, in the order of ``stores``.
    let storeConfigurationNames: [String]
    /// The index in ``stores`` of each entity's store; empty when there is one store.
    private let storeIndexes: [ObjectIdentifier: Int]
    private let main = Mutex<MainContextBox?>(nil)
    /// The threads ``perform(_:)`` runs work on, as many as the stores keep connections.
    let requestThreads: RequestThreads
    private let contextTrace = PosixMutex<(@Sendable (String) -> Void)?>(nil)

    /// The ``ModelContext/statementTrace`` of each context made for the container from now on:
    /// how a benchmark counts the statements of work whose contexts it never sees (a sync
    /// server's). Called on the context's thread.
    package var statementTraceOfNewContexts: (@Sendable (String) -> Void)? {
        get { contextTrace.withLock { $0 } }
        set { contextTrace.withLock { $0 = newValue } }
    }

    /// A container for `schema`, stored as `configurations` say (in the default store if empty).
    /// With a `migrationPlan`, the store is brought to the plan's newest version first, stage by
    /// stage, in one transaction; see ``SchemaMigrationPlan``.
    ///
    /// With several configurations, each model type lives in the store of the first
    /// configuration whose schema has it (a configuration without a schema has every type), so
    /// each configuration's models are in its own file or database. Related types share a store:
    /// a configuration's `Schema` has the types its types relate to. Saves commit store by store
    /// (see ``ModelContext/save()``); a migration plan needs a container of one store.
    /// - Throws: a ``SwiftDataError``, as SwiftData does, carrying the ``ModelKitError`` that says
    ///   what happened in ``SwiftDataError/underlying``: ``SwiftDataError/loadIssueModelContainer``
    ///   when the store cannot be opened, is not a database (or not ModelKit's), cannot be migrated
    ///   to the schema, or a migration stage fails (the store is left as it was), when two model
    ///   types share a name, when no configuration holds a type, or a migration plan is given
    ///   for several stores;
    ///   ``SwiftDataError/backwardMigration`` and ``SwiftDataError/unknownSchema`` for a store the
    ///   plan does not know; ``SwiftDataError/configurationFileNameContainsInvalidCharacters``
    ///   when the configuration's name is not a plain file name;
    ///   ``SwiftDataError/duplicateConfiguration`` for two configurations of one name or file;
    ///   ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` when a configuration's
    ///   schema has a type the container's does not. A database driver's own errors
    ///   (`PostgresError`) and a custom ``DataStore``'s pass through.
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [any DataStoreConfiguration]
    ) throws {
        self.schema = schema
        self.migrationPlan = migrationPlan
        self.configurations = Set(configurations.compactMap { $0 as? ModelConfiguration })
        do {
            try Self.check(schema)
            let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
            let placement = try StorePlacement(schema: schema, configurations: configurations)
            if migrationPlan != nil, placement.groups.count > 1 {
                throw ModelKitError.invalidConfiguration(
                    placement.groups[1].configuration.name,
                    reason: "a migration plan migrates one store: give each store its own container, or keep the models in one configuration")
            }
            SnapshotEntities.register(schema)
            stores = try placement.groups.map { group in
                let storeSchema = placement.groups.count == 1 ? schema : Schema(entities: group.entities, version: schema.version)
                guard let engine = group.configuration as? any EngineStoreConfiguration else {
                    return try Self.openCustomStore(group.configuration, entities: group.entities, schema: storeSchema, migrationPlan: migrationPlan)
                }
                if let driver = engine.engineDriver {
                    return try Store(
                        driver: driver, allowsSave: engine.allowsSave, recordsHistory: true, schema: storeSchema, migrationPlan: migrationPlan)
                }
                return try Store(configuration: engine as! ModelConfiguration, schema: storeSchema, migrationPlan: migrationPlan)
            }
            storeConfigurationNames = placement.groups.map(\.configuration.name)
            storeIndexes = placement.groups.count == 1 ? [:] : placement.indexes
            requestThreads = RequestThreads(limit: Self.requestThreadLimit(of: stores))
        } catch let error as ModelKitError {
            throw error.asContainerError
        } catch let failure as any DatabaseFailure {
            throw ModelKitError.database(failure.databaseError).asContainerError
        }
    }

    /// Opens a custom configuration's ``DataStore`` through its `Store.init(_:migrationPlan:)`.
    /// - Throws: ``ModelKitError/invalidConfiguration(_:reason:)`` for a class hierarchy, which
    ///   custom stores do not hold, or a store whose snapshots are not ``DefaultSnapshot``s; the
    ///   store's own error when it does not open.
    private static func openCustomStore(
        _ configuration: any DataStoreConfiguration, entities: [Schema.Entity], schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?
    ) throws -> Store {
        if let entity = entities.first(where: \.isInHierarchy) {
            throw ModelKitError.invalidConfiguration(
                configuration.name,
                reason: "\(entity.name) is in a class hierarchy, which a custom data store does not hold: keep the hierarchy in a ModelConfiguration's store")
        }
        return try Store(custom: CustomStore.open(configuration, migrationPlan: migrationPlan), schema: schema)
    }

    /// As many request threads as the stores keep connections: a driver's pool (PostgreSQL), or
    /// twice the cores for SQLite, whose readers run side by side and whose writer takes turns.
    private static func requestThreadLimit(of stores: [Store]) -> Int {
        stores.map { store in
            let driver = store.access.driver
            guard driver.writesConcurrently else { return 2 * ProcessInfo.processInfo.activeProcessorCount }
            return driver.pooledConnections > 0 ? driver.pooledConnections : 16
        }.max() ?? 1
    }

    /// Containers are equal when they are the same container, as SwiftData's are.
    public static func == (lhs: ModelContainer, rhs: ModelContainer) -> Bool { lhs === rhs }

    /// Checks that every entity can be stored as declared.
    private static func check(_ schema: Schema) throws {
        for entities in Dictionary(grouping: schema.entities, by: \.name).values where entities.count > 1 {
            throw ModelKitError.invalidSchema(
                entity: entities[0].name,
                reason: "\(entities.map { String(reflecting: $0.type) }.joined(separator: " and ")) share this name, and a model's "
                    + "name is its table's name; rename one of them, or use them in separate containers")
        }
        for entity in schema.entities {
            guard entity.hasModelClass else {
                throw ModelKitError.invalidSchema(
                    entity: entity.name,
                    reason: "the entity was built by hand or decoded, so it has no model class to make models of: "
                        + "make the schema of the @Model classes, as in Schema([\(entity.name).self])")
            }
            if let clash = entity.hierarchyColumnClash {
                throw ModelKitError.invalidSchema(
                    entity: entity.name,
                    reason: "\(clash.property) is also a property of \(clash.other), of another type, and a class hierarchy's classes "
                        + "share one table: rename one of them")
            }
            if let keyPath = entity.invalidKeyPath {
                throw ModelKitError.invalidSchema(
                    entity: entity.name, reason: "#Index or #Unique names \(keyPath), which is not a persisted property")
            }
            for property in entity.metadata where property.codec == nil {
                throw ModelKitError.unsupportedPropertyType(
                    entity: entity.name, property: property.name, type: String(reflecting: property.valueType))
            }
            for property in entity.metadata where property.isEphemeral {
                if property.encodedDefault == nil, property.codec?.isOptional == false {
                    throw ModelKitError.invalidSchema(
                        entity: entity.name, reason: "\(property.name) is .ephemeral, so rows do not hold it: give it a default value, or make it optional")
                }
                if (entity.uniqueConstraints + entity.indexes).contains(where: { $0.contains { $0.name == property.name } }) {
                    throw ModelKitError.invalidSchema(
                        entity: entity.name, reason: "\(property.name) is .ephemeral, so it has no column to index or keep unique")
                }
            }
        }
    }

    /// The index in ``stores`` of the store that holds `entity`, one of the schema's.
    func storeIndex(of entity: Schema.Entity) -> Int {
        storeIndex(of: ObjectIdentifier(entity))
    }

    /// The index in ``stores`` of the store that holds the schema's entity `entity`.
    func storeIndex(of entity: ObjectIdentifier) -> Int {
        storeIndexes.isEmpty ? 0 : storeIndexes[entity]!
    }

    /// The store that holds `entity`, one of the schema's.
    func store(for entity: Schema.Entity) -> Store { stores[storeIndex(of: entity)] }

    /// A container over a store being migrated, for one stage's contexts.
    init(migrating schema: Schema, store: Store) {
        self.schema = schema
        self.migrationPlan = nil
        self.configurations = []
        stores = [store]
        storeConfigurationNames = []
        storeIndexes = [:]
        requestThreads = RequestThreads(limit: 1)
    }

    deinit { requestThreads.stop() }

    /// A container for `schema`, stored as `configurations` say, migrated by `migrationPlan` if
    /// one is given. The configurations' type is spelled, so `.init(isStoredInMemoryOnly: true)`
    /// works as an argument.
    /// - Throws: a ``SwiftDataError``, as the designated initializer does.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for the given model types, stored as `configurations` say, migrated by
    /// `migrationPlan` if one is given.
    /// - Throws: a ``SwiftDataError``, as the designated initializer does.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `schema`, in the stores `configurations` describe: a
    /// ``ModelConfiguration`` or another database's configuration.
    /// - Throws: a ``SwiftDataError``, as the designated initializer does.
    public convenience init(for givenSchema: Schema, configurations: any DataStoreConfiguration...) throws {
        try self.init(for: givenSchema, configurations: configurations)
    }

    /// A container for the given model types, in the stores `configurations` describe: a
    /// ``ModelConfiguration`` or another database's configuration.
    /// - Throws: a ``SwiftDataError``, as the designated initializer does.
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: any DataStoreConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Deletes every model of every type in the container's stores, and their history, in one
    /// transaction per store, leaving the stores' tables (and identities) in place. Every context
    /// hears of it before its next read; a history reader resuming from an earlier token gets
    /// ``SwiftDataError/historyTokenExpired``, and must start over.
    ///
    /// As in SwiftData, this does not throw: a failure is logged, and the store it happened in
    /// keeps its data. Call ``erase()`` to hear of failures.
    public func deleteAllData() {
        do {
            try erase()
        } catch {
            ModelKitDebugLog.error("deleteAllData() failed, and the store keeps its data: \(error)")
        }
    }

    /// Deletes every model of every type in the container's stores, as ``deleteAllData()`` does,
    /// and throws when a store cannot be emptied.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` for a read-only store (before any store is
    ///   emptied), or a typed error when the database refuses.
    public func erase() throws {
        if let readOnly = stores.first(where: { !$0.allowsSave }) { throw ModelKitError.saveNotAllowed(readOnly.url) }
        for (index, store) in stores.enumerated() {
            if let custom = store.custom {
                try custom.withStore { try $0.erase() }
                continue
            }
            let entities = schema.entities.filter { storeIndex(of: $0) == index }
            try store.deleteAllRows(of: entities)
        }
    }

    /// The main actor's context, created on first use. Its autosave is on.
    @MainActor
    public var mainContext: ModelContext {
        main.withLock { box in
            if let box { return box.context }
            let created = MainContextBox(context: ModelContext(mainContextOf: self))
            box = created
            return created.context
        }
    }
}

/// Holds the main context, which only the main actor ever touches.
private final class MainContextBox: @unchecked Sendable {
    let context: ModelContext
    init(context: ModelContext) { self.context = context }
}

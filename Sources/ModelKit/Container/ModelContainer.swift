import Foundation
import Synchronization

/// Owns a store and the schema of the models in it; hands out contexts to read and write them.
///
/// ```swift
/// let container = try ModelContainer(for: TodoItem.self)
/// let context = container.mainContext   // on the main actor
/// ```
///
/// Creating a container opens (or creates) the store and migrates it to the schema. It is
/// `Sendable`: share one container, and give each isolation domain its own ``ModelContext``.
public final class ModelContainer: Sendable {
    /// The model types the container stores.
    public let schema: Schema
    /// The SQLite configurations the container was created with (none for another database).
    /// ModelKit stores every entity in the first configuration's store.
    public let configurations: Set<ModelConfiguration>
    let store: Store
    private let main = Mutex<MainContextBox?>(nil)

    /// A container for `schema`, stored as `configurations` say (in the default store if empty).
    /// With a `migrationPlan`, the store is brought to the plan's newest version first, stage by
    /// stage, in one transaction; see ``SchemaMigrationPlan``.
    /// - Throws: a ``SwiftDataError``, as SwiftData does, carrying the ``ModelKitError`` that says
    ///   what happened in ``SwiftDataError/underlying``: ``SwiftDataError/loadIssueModelContainer``
    ///   when the store cannot be opened, is not a database (or not ModelKit's), cannot be migrated
    ///   to the schema, or a migration stage fails (the store is left as it was), or when two model
    ///   types share a name; ``SwiftDataError/backwardMigration`` and
    ///   ``SwiftDataError/unknownSchema`` for a store the plan does not know;
    ///   ``SwiftDataError/configurationFileNameContainsInvalidCharacters`` when the configuration's
    ///   name is not a plain file name. A database driver's own errors (`PostgresError`) pass
    ///   through.
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [any DataStoreConfiguration]
    ) throws {
        do {
            (self.schema, self.configurations, store) = try Self.open(schema, migrationPlan: migrationPlan, configurations: configurations)
        } catch let error as ModelKitError {
            throw error.asContainerError
        } catch let error as SQLiteError {
            throw ModelKitError.sqlite(error).asContainerError
        }
    }

    /// Checks the schema and configurations, and opens the store.
    private static func open(
        _ schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [any DataStoreConfiguration]
    ) throws -> (Schema, Set<ModelConfiguration>, Store) {
        let first = configurations.first ?? ModelConfiguration()
        let configuration = first as? ModelConfiguration
        if let reason = configuration?.invalidNameReason {
            throw ModelKitError.invalidConfigurationName(first.name, reason: reason)
        }
        if configuration == nil, first._driver == nil {
            throw ModelKitError.invalidConfigurationName(first.name, reason: "a \(type(of: first)) names no database ModelKit can open")
        }
        for entities in Dictionary(grouping: schema.entities, by: \.name).values where entities.count > 1 {
            throw ModelKitError.invalidSchema(
                entity: entities[0].name,
                reason: "\(entities.map { String(reflecting: $0.type) }.joined(separator: " and ")) share this name, and a model's "
                    + "name is its table's name; rename one of them, or use them in separate containers")
        }
        for entity in schema.entities {
            if let keyPath = entity.invalidKeyPath {
                throw ModelKitError.invalidSchema(
                    entity: entity.name, reason: "#Index or #Unique names \(keyPath), which is not a persisted property")
            }
            for property in entity.properties where property.codec == nil {
                throw ModelKitError.unsupportedPropertyType(
                    entity: entity.name, property: property.name, type: String(reflecting: property.valueType))
            }
            for property in entity.properties where property.isEphemeral {
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
        let sqliteConfigurations = Set(configurations.compactMap { $0 as? ModelConfiguration } + [configuration].compactMap { $0 })
        if let driver = first._driver {
            let store = try Store(driver: driver.driver, allowsSave: first.allowsSave, recordsHistory: true, schema: schema, migrationPlan: migrationPlan)
            return (schema, sqliteConfigurations, store)
        }
        return (schema, sqliteConfigurations, try Store(configuration: configuration!, schema: schema, migrationPlan: migrationPlan))
    }

    /// A container over a store being migrated, for one stage's contexts.
    init(migrating schema: Schema, store: Store) {
        self.schema = schema
        self.configurations = []
        self.store = store
    }

    /// A container for `schema`.
    public convenience init(for schema: Schema, configurations: any DataStoreConfiguration...) throws {
        try self.init(for: schema, configurations: configurations)
    }

    /// A container for the given model types, migrated by `migrationPlan` if one is given.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Deletes every model of every type in the container's store, and its history, in one
    /// transaction, leaving the store's tables (and its identity) in place. Every context hears
    /// of it before its next read; a history reader resuming from an earlier token gets
    /// ``SwiftDataError/historyTokenExpired``, and must start over.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` for a read-only container, or a typed error
    ///   when SQLite refuses.
    public func deleteAllData() throws {
        guard store.allowsSave else { throw ModelKitError.saveNotAllowed(store.url) }
        let tables = schema.entities.map(\.sql.table) + schema.entities.flatMap(\.joinTables)
        do {
            try store.write(trace: nil) { writer in
                let change = StoreChange(isExternal: true, origin: ObjectIdentifier(store))
                var files: [String] = []
                try writer.transaction {
                    if store.externalFiles != nil {
                        for select in schema.entities.compactMap({ RelationshipSQL.externalValues(of: $0, keys: nil) }) {
                            files += ExternalFiles.names(in: try writer.statement(select).rows())
                        }
                    }
                    for table in Set(tables) { try writer.execute("DELETE FROM \(table)") }
                    if store.recordsHistory { try HistoryTable.deleteAll(in: writer) }
                    try store.access.announce(change, through: writer)
                }
                store.externalFiles?.remove(files)
                store.access.publish(change, from: nil)
            }
        } catch let error as SQLiteError {
            throw store.error(for: error)
        }
    }

    /// Empties the container's store, as ``deleteAllData()`` does.
    /// - Throws: what ``deleteAllData()`` throws.
    public func erase() throws {
        try deleteAllData()
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

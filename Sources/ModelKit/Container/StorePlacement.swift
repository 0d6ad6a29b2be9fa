import Foundation

/// Which store holds each of a container's entities: the first configuration whose schema has
/// the entity (every entity, for a configuration without one). Configurations that hold no
/// entity open no store. Related entities always share a store: a `Schema` has the types its
/// types relate to, so the first configuration with one of them has them all. A class
/// hierarchy's classes share its root's store.
struct StorePlacement {
    /// The configurations that hold entities, in the order given, with their entities.
    let groups: [(configuration: any DataStoreConfiguration, entities: [Schema.Entity])]
    /// The index in ``groups`` of each entity's store, by entity.
    let indexes: [ObjectIdentifier: Int]

    /// Places `schema`'s entities in `configurations`' stores.
    /// - Throws: ``ModelKitError/invalidConfigurationName(_:reason:)`` for a name that cannot
    ///   name a file;
    ///   ``ModelKitError/duplicateConfiguration(_:)``;
    ///   ``ModelKitError/configurationSchemaNotInContainer(configuration:entity:)``;
    ///   ``ModelKitError/invalidConfiguration(_:reason:)`` when an entity has no store.
    init(schema: Schema, configurations: [any DataStoreConfiguration]) throws {
        var names = Set<String>()
        var files = Set<URL>()
        for configuration in configurations {
            let sqlite = configuration as? ModelConfiguration
            if let reason = sqlite?.invalidNameReason {
                throw ModelKitError.invalidConfigurationName(configuration.name, reason: reason)
            }
            let file = sqlite.flatMap { $0.isStoredInMemoryOnly ? nil : $0.url.standardizedFileURL }
            guard names.insert(configuration.name).inserted, file.map({ files.insert($0).inserted }) ?? true else {
                throw ModelKitError.duplicateConfiguration(configuration.name)
            }
            for entity in configuration.schema?.entities ?? [] where schema.entity(named: entity.name) == nil {
                throw ModelKitError.configurationSchemaNotInContainer(configuration: configuration.name, entity: entity.name)
            }
        }
        var byConfiguration: [Int: [Schema.Entity]] = [:]
        var configurationOf: [ObjectIdentifier: Int] = [:]
        for entity in schema.entities {
            // A class hierarchy is one table: its classes go to its root's store (the schema
            // lists superclasses first).
            let rootIndex = entity.superentity == nil ? nil : configurationOf[entity.rootIdentifier]
            guard
                let index = rootIndex
                    ?? configurations.firstIndex(where: { $0.schema?.entity(named: entity.name) != nil || $0.schema == nil })
            else {
                throw ModelKitError.invalidConfiguration(
                    configurations[0].name,
                    reason: "no configuration holds \(entity.name): add it to a configuration's schema, or add a configuration without one")
            }
            byConfiguration[index, default: []].append(entity)
            configurationOf[ObjectIdentifier(entity)] = index
        }
        let used = byConfiguration.keys.sorted()
        groups = used.map { (configurations[$0], byConfiguration[$0]!) }
        indexes = configurationOf.mapValues { used.firstIndex(of: $0)! }
    }
}

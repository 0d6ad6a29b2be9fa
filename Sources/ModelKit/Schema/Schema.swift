import Synchronization

/// The model types a ``ModelContainer`` stores.
///
/// ```swift
/// let schema = Schema([TodoItem.self, Tag.self])
/// let container = try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
/// ```
public final class Schema: @unchecked Sendable {
    /// A version number for a schema, as in SwiftData: ordered, `Codable`, printed `1.2.3`. A
    /// ``SchemaMigrationPlan`` records it in the store.
    public struct Version: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
        public let major: Int
        public let minor: Int
        public let patch: Int

        /// The version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            (self.major, self.minor, self.patch) = (major, minor, patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// Parses `major.minor.patch`, as ``description`` prints it.
        init?(_ text: String) {
            let parts = text.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            self.init(parts[0], parts[1], parts[2])
        }
    }

    /// The entities, one per model type, in the order given.
    public let entities: [Entity]
    /// The schema's version, as given.
    public let version: Version
    /// The entities by name.
    public let entitiesByName: [String: Entity]
    private let entitiesByType: [ObjectIdentifier: Entity]
    /// The version of the format the schema was encoded in: ``schemaEncodingVersion`` unless it
    /// was decoded.
    public let encodingVersion: Version

    /// The version of the format ``save(to:)`` and `Codable` write.
    public static let schemaEncodingVersion = Version(1, 0, 0)

    /// A schema of the given model types and, as in SwiftData, of every model type they are
    /// related to, and of their model superclasses. Listing a type twice lists it once.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var seen = Set<ObjectIdentifier>()
        var entities: [Entity] = []
        var pending = Schema.withSuperclasses(types)
        while !pending.isEmpty {
            let type = pending.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let entity = Entity(type)
            entities.append(entity)
            pending += Schema.withSuperclasses(entity.orderedRelationships.map { $0.shape.target })
        }
        self.entities = entities
        self.version = version
        encodingVersion = Schema.schemaEncodingVersion
        entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        entitiesByType = Dictionary(uniqueKeysWithValues: entities.map { (ObjectIdentifier($0.type), $0) })
        Schema.resolveHierarchies(of: entities, named: entitiesByType)
        Schema.resolveRelationships(of: entities, named: entitiesByType)
    }

    /// A schema of some entities of another schema, already resolved (the part of a container's
    /// schema that one of its stores holds), or of entities built by hand or decoded, which have
    /// no model class.
    init(entities: [Entity], version: Version, encodingVersion: Version = Schema.schemaEncodingVersion) {
        self.entities = entities
        self.version = version
        self.encodingVersion = encodingVersion
        entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        entitiesByType = Dictionary(
            entities.filter(\.hasModelClass).map { (ObjectIdentifier($0.type), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A schema of the given model types.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The entity of `type`, if the schema has it.
    func entity(for type: any PersistentModel.Type) -> Entity? {
        entitiesByType[ObjectIdentifier(type)]
    }

    func entity(named name: String) -> Entity? { entitiesByName[name] }

    /// The entity of the model type `type`, if the schema has it, as in SwiftData.
    public func entity<T>(for type: T.Type) -> Entity? where T: PersistentModel {
        entitiesByType[ObjectIdentifier(type)]
    }

    /// The name of the entity of the model type `type`: its class name, as in SwiftData.
    public static func entityName<T>(for type: T.Type) -> String where T: PersistentModel {
        T.entityName
    }
}

extension Schema {
    private static let standalone = Mutex<[ObjectIdentifier: Entity]>([:])

    /// The entity of a model type on its own (with the types it relates to), for models that are
    /// in no context yet.
    static func standaloneEntity(for type: any PersistentModel.Type) -> Entity {
        let key = ObjectIdentifier(type)
        if let entity = standalone.withLock({ $0[key] }) { return entity }
        let entity = Schema([type]).entity(for: type)!
        standalone.withLock { $0[key] = entity }
        return entity
    }
}

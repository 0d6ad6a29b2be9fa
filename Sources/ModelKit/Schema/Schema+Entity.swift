import Synchronization
extension Schema {
    /// One model type: its table and its persisted properties.
    ///
    /// A schema made of model classes has one per class. An entity built by hand
    /// (``init(_:subentities:properties:)``) or decoded describes a model but has no class to make
    /// models of: a container refuses a schema of such entities.
    public final class Entity: @unchecked Sendable, Hashable, CustomStringConvertible {
        /// The entity's name, which is the class name and the table name.
        public let name: String
        /// The persisted properties, in column order, from `@Model`: what the engine reads.
        let metadata: [PropertyMetadata]
        /// The model class; ``MissingModel`` for an entity built by hand or decoded.
        let type: any PersistentModel.Type
        /// The properties of an entity built by hand or decoded, as given; nil for a model class's.
        let describedProperties: [any SchemaProperty]?
        /// The `#Unique` and `#Index` groups of an entity built by hand or decoded, as given.
        var describedUniqueness: [[String]] = []
        var describedIndices: [[String]] = []
        /// The superentity's name a decoded entity was encoded with, until its schema links them.
        var decodedSuperentityName: String?
        private let columnsByKeyPath: [AnyKeyPath: Int]
        /// Groups of properties whose values are unique together: each `@Attribute(.unique)`
        /// property alone, then each `#Unique` group.
        let uniqueConstraints: [[PropertyMetadata]]
        /// Groups of properties to index, from `#Index`.
        let indexes: [[PropertyMetadata]]
        /// A `#Index` or `#Unique` key path that is not a persisted property, if any.
        let invalidKeyPath: AnyKeyPath?
        /// The entity's table statements.
        var sql: TableSQL
        /// The entity of the model's superclass, if the schema has it (iOS 26 class inheritance).
        public internal(set) var superentity: Schema.Entity?
        /// The entities of the model's direct subclasses, in schema order. Set with the schema.
        var directSubentities: [Schema.Entity] = []
        /// The class hierarchy whose table the entity shares, if it has a superclass or
        /// subclasses. Set with the schema.
        var hierarchy: Hierarchy? {
            didSet { (isInHierarchy, rootIdentifier) = (hierarchy != nil, ObjectIdentifier(hierarchy?.root ?? self)) }
        }
        /// Whether ``hierarchy`` is set, and the identity of its root (the entity whose identity
        /// map slot and keys its rows share; the entity itself outside a hierarchy): what each
        /// loaded row and each identity-map lookup asks, read without a reference count.
        private(set) var isInHierarchy = false
        private(set) var rootIdentifier = ObjectIdentifier(Entity.self)  // the entity's own, once made
        /// The result column of each property in a select of the entity, in property order: the
        /// property's index plus one, except in a hierarchy's shared select list. Set with the schema.
        var resultColumns: [Int32]
        /// The relationships whose initializers do not note a model they are given (a subclass's):
        /// inserting a model links their inverses by looking at their values.
        let unnotedRelationships: [RelationshipInfo]
        /// How each property is stored, in column order. Valid once the container has checked
        /// that every property's type can be stored.
        let columns: [Column]
        /// The relationship properties, by index; linked to their targets when the schema is built.
        let relationshipsByColumn: RelationshipsByColumn
        /// The same relationships, in property order.
        let orderedRelationships: [RelationshipInfo]
        /// The faults of every to-many, which a loaded row leaves to load on first read: one list
        /// the entity's rows share until one of them changes it.
        let toManyFaults: [ModelStorage.Faults.Entry]
        /// The optional to-ones, which a loaded row leaves to load on first read when it holds a key.
        let optionalToOneColumns: [Int]
        /// How SQLite treats each property's stored form, in property order.
        let storageTraits: [StorageTraits]
        /// Predicates on the entity, translated, by shape.
        let translations = TranslationCache()
        /// How many rows the last fetch of every row of the entity returned, in any context: the
        /// next one makes room for that many models in its identity map at once, rather than
        /// doubling it as rows arrive (a tenth of such a fetch's time at 100,000 rows).
        let wholeTableRows = Atomic<Int>(0)
        /// What rows hold for the `.ephemeral` properties, which have no column: their default
        /// values, by index. Nil when the entity has none.
        let ephemeralValues: [Int: SQLValue]?
        /// The `Data` properties marked `@Attribute(.externalStorage)`, whose large values an
        /// on-disk store keeps in files (see ``ExternalFiles``).
        let externalColumns: Set<Int>
        /// Each property's name, in property order: what saves log to the history.
        let propertyNames: [String]
        /// What the temporary identifiers of the entity's unsaved models share.
        let temporaryScope: PersistentIdentifier.Scope
        /// Whether each property has a column in the entity's table, in property order.
        let storedInTable: [Bool]
        /// What each attribute holds while a partial fetch leaves it out; nil where it is always
        /// read (see ``PartialFetch``).
        private(set) var unfetchedPlaceholders: [SQLValue?] = []
        /// What deleting a row cleans up: its join-table links, and references to it from
        /// relationships without an inverse. Set with the schema.
        var cleanupOnDelete: [DeleteCleanup] = []
        /// Required to-ones of other entities, without an inverse, that may point at this one's
        /// rows. Set with the schema.
        var requiredReferences: [RequiredReference] = []

        /// The entity of a model class.
        convenience init(_ type: any PersistentModel.Type) {
            self.init(type: type, name: type.entityName, described: nil)
        }

        /// An entity described by hand, as in SwiftData: a name and properties, with no model class.
        public convenience init(_ name: String) {
            self.init(name, subentities: [], properties: [])
        }

        /// An entity described by hand, as in SwiftData: a name and properties, with no model class.
        public convenience init(_ name: String, properties: any SchemaProperty...) {
            self.init(name, subentities: [], properties: properties)
        }

        /// An entity described by hand, as in SwiftData, with the entities of its subclasses.
        public convenience init(_ name: String, subentities: Schema.Entity..., properties: any SchemaProperty...) {
            self.init(name, subentities: subentities, properties: properties)
        }

        convenience init(_ name: String, subentities: [Schema.Entity], properties: [any SchemaProperty]) {
            self.init(type: MissingModel.self, name: name, described: properties)
            directSubentities = subentities
            for subentity in subentities { subentity.superentity = self }
        }

        private init(type: any PersistentModel.Type, name: String, described: [any SchemaProperty]?) {
            self.type = type
            self.name = name
            describedProperties = described
            temporaryScope = PersistentIdentifier.Scope(entityName: name, storeIdentifier: nil, isTemporary: true)
            let properties = type.schemaMetadata
            metadata = properties
            var columnsByKeyPath = Dictionary(
                properties.enumerated().map { ($0.element.keyPath, $0.offset) }, uniquingKeysWith: { first, _ in first })
            // A subclass's inherited properties also answer to its superclasses' key paths
            // (`\Trip.name` for `\BusinessTrip.name`), which their `#Index` and `#Unique` name.
            var ancestor = Schema.superModel(of: type)
            while let superclass = ancestor {
                for (index, property) in superclass.schemaMetadata.enumerated() where columnsByKeyPath[property.keyPath] == nil {
                    columnsByKeyPath[property.keyPath] = index
                }
                ancestor = Schema.superModel(of: superclass)
            }
            self.columnsByKeyPath = columnsByKeyPath
            var invalidKeyPath: AnyKeyPath?
            func resolve(_ groups: [[AnyKeyPath]]) -> [[PropertyMetadata]] {
                groups.map { group in
                    group.compactMap { keyPath in
                        guard let column = columnsByKeyPath[keyPath] else {
                            invalidKeyPath = invalidKeyPath ?? keyPath
                            return nil
                        }
                        return properties[column]
                    }
                }.filter { !$0.isEmpty }
            }
            uniqueConstraints = properties.filter(\.isUnique).map { [$0] } + resolve(type._modelKitUniqueConstraints)
            indexes = resolve(type._modelKitIndexes)
            self.invalidKeyPath = invalidKeyPath
            sql = TableSQL(name: name, properties: properties, uniqueConstraints: uniqueConstraints)
            columns = properties.compactMap(\.column)
            let relationships = properties.enumerated().map { index, property -> RelationshipInfo? in
                guard let shape = property.relationshipShape else { return nil }
                func access<Model: PersistentModel>(_ model: Model.Type) -> RelationshipAccess {
                    RelationshipAccess(model, column: index, placeholder: property.relationshipPlaceholder)
                }
                return RelationshipInfo(column: index, property: property, shape: shape, access: access(type))
            }
            relationshipsByColumn = RelationshipsByColumn(relationships)
            orderedRelationships = relationships.compactMap { $0 }
            unnotedRelationships = orderedRelationships.filter { !properties[$0.column].notesInitialValue }
            resultColumns = properties.indices.map { Int32($0 + 1) }
            toManyFaults = orderedRelationships.filter(\.isToMany).map { ($0.column, .toMany) }
            optionalToOneColumns = orderedRelationships.compactMap { relationship in
                guard case .toOne(_, isOptional: true) = relationship.shape else { return nil }
                return relationship.column
            }
            storageTraits = properties.map { StorageTraits.of($0.valueType) }
            propertyNames = properties.map(\.name)
            storedInTable = properties.map(\.isStoredInTable)
            externalColumns = Set(properties.indices.filter { index in
                let property = properties[index]
                return property.isStoredInTable && property.codec?.affinity == .blob
                    && property.attribute?.options.contains(.externalStorage) == true
            })
            let ephemeral = properties.indices.filter { properties[$0].isEphemeral }
            ephemeralValues = ephemeral.isEmpty
                ? nil : Dictionary(uniqueKeysWithValues: ephemeral.map { ($0, properties[$0].encodedDefault ?? .null) })
            unfetchedPlaceholders = PartialFetch.placeholders(of: self)
            rootIdentifier = ObjectIdentifier(self)
        }

        /// The entities of the model's direct subclasses.
        public var subentities: Set<Schema.Entity> { Set(directSubentities) }

        /// The name of the superclass's entity, if the model subclasses another.
        public var superentityName: String? { superentity?.name }

        /// The groups of property names `#Unique` makes unique together.
        public var uniquenessConstraints: [[String]] {
            guard describedProperties == nil else { return describedUniqueness }
            return type._modelKitUniqueConstraints.map { group in group.compactMap { column(for: $0).map { metadata[$0].name } } }
        }

        /// The quoted names of the join tables this entity's relationships own.
        var joinTables: [String] {
            orderedRelationships.compactMap { relationship in
                guard case .joinTable(let name, _, _) = relationship.storage else { return nil }
                return name.quotedIdentifier
            }
        }

        /// Whether SQL can compare the property's stored values: not an ephemeral property (no
        /// column), nor an external one (its column may hold a file name).
        func isQueryable(_ index: Int) -> Bool {
            !metadata[index].isEphemeral && !externalColumns.contains(index)
        }

        /// The column index of the persisted property at `keyPath`, if there is one.
        func column(for keyPath: AnyKeyPath) -> Int? { columnsByKeyPath[keyPath] }

        /// Whether the entity has a model class: false for one built by hand or decoded.
        var hasModelClass: Bool { describedProperties == nil }

        public var description: String { name }

        /// Entities are equal when they describe the same model: the same name, superentity,
        /// properties and constraints (the entities two schemas of one model class make are equal).
        public static func == (lhs: Entity, rhs: Entity) -> Bool {
            lhs === rhs
                || (lhs.name == rhs.name && lhs.superentityName == rhs.superentityName
                    && lhs.properties.map { AnyHashable($0) } == rhs.properties.map { AnyHashable($0) }
                    && lhs.uniquenessConstraints == rhs.uniquenessConstraints && lhs.indices == rhs.indices)
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}

extension Schema {
    /// The model types of `types` with their model superclasses, each superclass before its
    /// subclasses: a schema listing `BusinessTrip` stores `Trip` too, as SwiftData's does.
    static func withSuperclasses(_ types: [any PersistentModel.Type]) -> [any PersistentModel.Type] {
        var result: [any PersistentModel.Type] = []
        var seen = Set<ObjectIdentifier>()
        func add(_ type: any PersistentModel.Type) {
            guard !seen.contains(ObjectIdentifier(type)) else { return }
            if let superclass = superModel(of: type) { add(superclass) }
            if seen.insert(ObjectIdentifier(type)).inserted { result.append(type) }
        }
        types.forEach(add)
        return result
    }

    /// Whether `type` is `ancestor` or one of its subclasses.
    static func isKind(_ type: any PersistentModel.Type, of ancestor: any PersistentModel.Type) -> Bool {
        var current: AnyClass? = type
        while let next = current {
            if ObjectIdentifier(next) == ObjectIdentifier(ancestor) { return true }
            current = _getSuperclass(next)
        }
        return false
    }

    /// The model class `type` subclasses, if any.
    static func superModel(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        _getSuperclass(type) as? any PersistentModel.Type
    }

    /// Links each entity to the entity of its superclass, and gives every class hierarchy one
    /// table: the root's, holding the columns of every class and the `_type` column naming each
    /// row's class (see ``Schema/Entity/Hierarchy``).
    static func resolveHierarchies(of entities: [Entity], named: [ObjectIdentifier: Entity]) {
        for entity in entities {
            guard let superclass = superModel(of: entity.type), let superentity = named[ObjectIdentifier(superclass)] else { continue }
            entity.superentity = superentity
            superentity.directSubentities.append(entity)
        }
        for root in entities where root.superentity == nil && !root.directSubentities.isEmpty {
            let hierarchy = Entity.Hierarchy(root: root)
            for entity in hierarchy.entities { entity.join(hierarchy) }
        }
    }
}

extension Schema.Entity {
    /// A class hierarchy's shared table: the root's properties, then each subclass's own, in
    /// schema order, then `_type`. Every entity of the hierarchy selects this same list, so that
    /// a fetch of the base type reads the rows of every class, each made as its own class.
    final class Hierarchy: @unchecked Sendable {
        static let typeColumn = "_type"
        static let quotedTypeColumn = typeColumn.quotedIdentifier

        unowned let root: Schema.Entity
        /// The root and its subclasses, each after its superclass.
        let entities: [Schema.Entity]
        /// The table's properties, in select-list order: each class's own ones, once.
        let properties: [Schema.PropertyMetadata]
        /// The result column of `_type` in a select of the hierarchy.
        let typeResultColumn: Int32
        private let entitiesByName: [String: Schema.Entity]

        init(root: Schema.Entity) {
            self.root = root
            var entities: [Schema.Entity] = []
            func visit(_ entity: Schema.Entity) {
                entities.append(entity)
                entity.directSubentities.forEach(visit)
            }
            visit(root)
            self.entities = entities
            var properties = root.metadata
            var names = Set(properties.map(\.name))
            for entity in entities.dropFirst() {
                for property in entity.ownProperties where names.insert(property.name).inserted {
                    properties.append(property)
                }
            }
            self.properties = properties
            typeResultColumn = Int32(properties.count + 1)
            entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// The entity of the class a row's `_type` names, if it is one of this hierarchy.
        func entity(named name: String) -> Schema.Entity? { entitiesByName[name] }
    }

    /// The properties the class declares itself, not those it inherits.
    var ownProperties: ArraySlice<Schema.PropertyMetadata> {
        metadata[(superentity?.metadata.count ?? 0)...]
    }

    /// A property the entity declares that another class of its hierarchy declares too, stored
    /// differently: the two would share one column. Nil when there is none; two classes that
    /// declare a property alike share its column.
    var hierarchyColumnClash: (property: String, other: String)? {
        guard let hierarchy else { return nil }
        for property in ownProperties {
            for other in hierarchy.entities where other !== self {
                guard let theirs = other.ownProperties.first(where: { $0.name == property.name }) else { continue }
                if theirs.codec?.storageKind != property.codec?.storageKind || theirs.relationshipShape != nil || property.relationshipShape != nil {
                    return (property.name, other.name)
                }
            }
        }
        return nil
    }

    /// The entity's class and its subclasses' names: the `_type` values of its rows.
    var typeNames: [String] {
        [name] + directSubentities.flatMap(\.typeNames)
    }

    /// Joins `hierarchy`: the entity reads and writes the hierarchy's table, and a select of it
    /// reads the hierarchy's columns, among which its properties are found by name.
    func join(_ hierarchy: Hierarchy) {
        self.hierarchy = hierarchy
        let positions = Dictionary(hierarchy.properties.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
        resultColumns = metadata.map { Int32(positions[$0.name]! + 1) }
        sql = TableSQL(
            name: name, properties: metadata, uniqueConstraints: uniqueConstraints,
            hierarchy: TableSQL.HierarchyLayout(
                table: hierarchy.root.name, properties: hierarchy.properties, typeName: name,
                typeFilter: superentity == nil ? nil : typeNames))
    }

    /// The entity of the class a row of this entity's select belongs to: itself, or a subclass's
    /// named by the row's `_type`.
    func concreteEntity(of statement: Statement) -> Schema.Entity {
        guard let hierarchy, case .text(let name) = statement.column(hierarchy.typeResultColumn), name != self.name else { return self }
        return hierarchy.entity(named: name) ?? self
    }
}

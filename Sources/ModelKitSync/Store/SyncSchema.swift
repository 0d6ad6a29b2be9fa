import ModelKit

/// What of a schema syncs: each entity's synced fields. A relationship syncs from one side
/// only, the other following as its inverse: a to-one rather than its to-many inverse, and of
/// two to-manys or two to-ones the side whose `entity.property` sorts first. Ephemeral
/// attributes do not sync.
struct SyncSchema: Sendable {
    struct Field: Sendable {
        let index: Int
        let name: String
        let kind: Schema.Entity.ReplicaProperty.Kind
        var isToMany: Bool { if case .toMany = kind { true } else { false } }
        var isRelationship: Bool { kind != .attribute }
        /// The entity a relationship holds rows of; nil for an attribute.
        var target: String? {
            switch kind {
            case .attribute: nil
            case .toOne(let target, _), .toMany(let target): target
            }
        }
    }

    struct Entity: @unchecked Sendable {
        // Unchecked: the schema's entity is immutable once made.
        let entity: Schema.Entity
        let name: String
        /// The class and its superclasses, for the rules set on either.
        let lineage: [String]
        let fields: [Field]
        let fieldsByName: [String: Field]
        /// Its class hierarchy's root, whose table unique constraints span.
        let root: String
        /// Its unique constraints' properties, by name: attributes only.
        let uniques: [[String]]

        /// What a new row of the entity is made with from its fields' `values`: its attributes'
        /// values, and for a required to-one (which loads with its row) the key `key` finds for
        /// its target, given the target's identifier and the entity it must be of.
        func storedValues(of values: [String: SyncValue], key: (_ gid: String, _ entity: String) -> Int64?) -> [Int: SQLValue] {
            var stored: [Int: SQLValue] = [:]
            for field in fields {
                guard let value = values[field.name] else { continue }
                switch field.kind {
                case .attribute: stored[field.index] = value.sqlValue
                case .toOne(let entity, isOptional: false):
                    if case .reference(let target) = value, let target = key(target, entity) { stored[field.index] = .integer(target) }
                default: break
                }
            }
            return stored
        }
    }

    let entities: [String: Entity]
    /// Entities that are no subclass, by name: a full download reads each row once through its root.
    let roots: [Entity]
    let fingerprint: String

    init(_ schema: Schema) {
        var entities: [String: Entity] = [:]
        for entity in schema.entities {
            let fields = entity.replicaProperties.compactMap { property -> Field? in
                guard !property.isEphemeral else { return nil }
                let mine = "\(entity.name).\(property.name)"
                switch property.kind {
                case .attribute: break
                case .toOne(let target, _):
                    if let inverse = property.inverseName, !property.inverseIsToMany, "\(target).\(inverse)" < mine { return nil }
                case .toMany(let target):
                    if let inverse = property.inverseName, !property.inverseIsToMany || "\(target).\(inverse)" < mine { return nil }
                }
                return Field(index: property.index, name: property.name, kind: property.kind)
            }
            var lineage: [String] = []
            var current: Schema.Entity? = entity
            while let next = current {
                lineage.append(next.name)
                current = next.superentity
            }
            let attributes = Dictionary(uniqueKeysWithValues: fields.filter { !$0.isRelationship }.map { ($0.index, $0.name) })
            let uniques = entity.replicaUniqueConstraints.compactMap { indexes -> [String]? in
                let names = indexes.compactMap { attributes[$0] }
                return names.count == indexes.count && !names.isEmpty ? names : nil
            }
            entities[entity.name] = Entity(
                entity: entity, name: entity.name, lineage: lineage, fields: fields,
                fieldsByName: Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0) }), root: lineage.last!, uniques: uniques)
        }
        self.entities = entities
        roots = entities.values.filter { $0.entity.superentity == nil }.sorted { $0.name < $1.name }
        fingerprint = schema.replicaFingerprint
    }

    /// Whether a row of the entity named `name` is one of `entity`: the same, or a subclass.
    func entity(named name: String, isA entity: String) -> Bool {
        entities[name]?.lineage.contains(entity) == true
    }

    /// The entity named `name`.
    /// - Throws: ``SyncError/Code/schemaMismatch`` for a name the schema lacks.
    func entity(named name: String) throws -> Entity {
        guard let entity = entities[name] else {
            throw SyncError(.schemaMismatch, "\(name) is not a model of this schema; sync devices and servers with the same models")
        }
        return entity
    }
}

import Synchronization

/// Reads and writes a relationship property on a model whose type the engine knows only at run
/// time, as a list of models: a to-one reads as zero or one, a to-many as its elements. It goes
/// through the accessors ``Model()`` generates, which reach the property without key paths.
struct RelationshipAccess: @unchecked Sendable {
    /// The current related models (a fault loads first).
    let read: (AnyObject) -> [any PersistentModel]
    /// Whether the property holds the second model, without making a list.
    let holds: (AnyObject, AnyObject) -> Bool
    /// Sets the property from a list of models, through its setter. A required to-one is never
    /// emptied.
    let assign: (AnyObject, [any PersistentModel]) -> Void
    /// Makes the relationship include the second model or leave it out, in place; false when
    /// nothing changed (a required to-one is never emptied).
    let include: (AnyObject, AnyObject, Bool) -> Bool
    /// The value a lazily loaded property starts with: nil, or an empty array.
    let placeholder: Any

    /// The access of the relationship property at `column` of `Model`.
    init<Model: PersistentModel>(_: Model.Type, column: Int, placeholder: Any) {
        read = { ($0 as! Model)._modelKitModels(at: column) }
        holds = { ($0 as! Model)._modelKitHolds($1, at: column) }
        assign = { ($0 as! Model)._modelKitSet($1, at: column) }
        include = { ($0 as! Model)._modelKitInclude($1, $2, at: column) }
        self.placeholder = placeholder
    }
}

/// A relationship property, resolved against the whole schema: its target, its inverse, and
/// where its links are stored.
final class RelationshipInfo: @unchecked Sendable {
    /// Where the links of a relationship live.
    enum Storage {
        /// A column of the owner's table holding the target's primary key (every to-one).
        case foreignKey
        /// The inverse to-one's column on the target's table (a to-many whose inverse is a to-one).
        case inverseForeignKey
        /// A table of (owner, target) pairs (other to-manys). `ownerColumn` names this side.
        case joinTable(name: String, ownerColumn: String, targetColumn: String)
    }

    /// The property's index in its entity.
    let column: Int
    let name: String
    let shape: RelationshipShape
    let deleteRule: Schema.Relationship.DeleteRule
    let declaredInverse: AnyKeyPath?
    let access: RelationshipAccess
    /// Set while the schema is built; fixed afterwards.
    fileprivate(set) var target: Schema.Entity!
    fileprivate(set) weak var inverse: RelationshipInfo?
    fileprivate(set) var storage = Storage.foreignKey
    /// The models the last prefetch of this to-many added to its context for each of its owners,
    /// in any context, in 1/1024ths: the next makes room in its identity map for that many at
    /// once, rather than doubling the table as rows arrive (the table's growth was a twelfth of
    /// `relationship_fetch_prefetch`'s time at 100,000 children).
    let prefetchedModelsPerOwner = Atomic<Int>(0)

    init(column: Int, property: Schema.PropertyMetadata, shape: RelationshipShape, access: RelationshipAccess) {
        self.column = column
        name = property.name
        self.shape = shape
        deleteRule = property.relationship?.deleteRule ?? .nullify
        declaredInverse = property.relationship?.inverse
        self.access = access
    }

    var isToMany: Bool { shape.isToMany }
}

extension Schema {
    /// Links every relationship to its target entity and inverse, and decides where to-many links
    /// are stored. An inverse is the one declared on either side, or else the only property of
    /// the target that points back.
    static func resolveRelationships(of entities: [Entity], named: [ObjectIdentifier: Entity]) {
        for entity in entities {
            for relationship in entity.orderedRelationships {
                relationship.target = named[ObjectIdentifier(relationship.shape.target)]
            }
        }
        for entity in entities {
            for relationship in entity.orderedRelationships where relationship.inverse == nil && !entity.inherits(relationship) {
                guard let target = relationship.target else { continue }
                let candidates = target.orderedRelationships.filter { $0.target === entity && $0 !== relationship }
                let declared = relationship.declaredInverse.flatMap { keyPath in candidates.first { target.metadata[$0.column].keyPath == keyPath } }
                let pointingHere = candidates.first { candidate in
                    candidate.declaredInverse.map { entity.metadata[relationship.column].keyPath == $0 } ?? false
                }
                let inferred = candidates.count == 1 && candidates[0].declaredInverse == nil ? candidates.first : nil
                if let inverse = declared ?? pointingHere ?? inferred {
                    relationship.inverse = inverse
                    inverse.inverse = relationship
                }
            }
        }
        for entity in entities {
            for relationship in entity.orderedRelationships where relationship.isToMany && !entity.inherits(relationship) {
                if let inverse = relationship.inverse, !inverse.isToMany {
                    relationship.storage = .inverseForeignKey
                } else if let inverse = relationship.inverse, inverse.isToMany {
                    // Many-to-many: one table, named after the side that sorts first.
                    let mine = "\(entity.name)_\(relationship.name)"
                    let theirs = "\(relationship.target.name)_\(inverse.name)"
                    relationship.storage = mine <= theirs
                        ? .joinTable(name: mine, ownerColumn: "owner", targetColumn: "target")
                        : .joinTable(name: theirs, ownerColumn: "target", targetColumn: "owner")
                } else {
                    relationship.storage = .joinTable(name: "\(entity.name)_\(relationship.name)", ownerColumn: "owner", targetColumn: "target")
                }
            }
        }
        // A subclass's inherited relationships are its superclass's: the same inverse (which
        // points back at the superclass's) and storage.
        for entity in entities {
            guard let superentity = entity.superentity else { continue }
            for relationship in entity.orderedRelationships where entity.inherits(relationship) {
                let inherited = superentity.relationshipsByColumn[relationship.column]!
                relationship.inverse = inherited.inverse
                relationship.storage = inherited.storage
            }
        }
        for entity in entities {
            for relationship in entity.orderedRelationships where !entity.inherits(relationship) {
                switch relationship.storage {
                case .foreignKey where relationship.inverse == nil:
                    let column = entity.sql.columns[relationship.column]
                    if case .toOne(_, isOptional: false) = relationship.shape {
                        // A required reference cannot be cleared: deleting its target must fail.
                        let reference = RequiredReference(
                            table: entity.sql.table, column: column, entity: entity.name, relationship: relationship.name)
                        relationship.target?.requiredReferences.append(reference)
                    } else {
                        relationship.target?.cleanupOnDelete.append(.clearReference(table: entity.sql.table, column: column))
                    }
                case .joinTable(let name, let ownerColumn, let targetColumn) where ownerColumn == "owner":
                    entity.cleanupOnDelete.append(.unlink(joinTable: name, column: ownerColumn))
                    relationship.target?.cleanupOnDelete.append(.unlink(joinTable: name, column: targetColumn))
                default:
                    break
                }
            }
        }
        // A subclass's row is also its superclasses': what deleting one cleans up or checks
        // includes theirs. Superclasses come first in the schema.
        for entity in entities {
            guard let superentity = entity.superentity else { continue }
            entity.cleanupOnDelete = superentity.cleanupOnDelete + entity.cleanupOnDelete
            entity.requiredReferences = superentity.requiredReferences + entity.requiredReferences
        }
    }
}

extension Schema.Entity {
    /// Whether `relationship` is one the entity's class inherits from its superclass.
    func inherits(_ relationship: RelationshipInfo) -> Bool {
        relationship.column < (superentity?.metadata.count ?? 0)
    }
}

/// A required to-one without an inverse that may point at a row of the entity holding this: the
/// row cannot be deleted while `column` of `table` (both quoted) holds its key.
struct RequiredReference: Sendable {
    let table: String
    let column: String
    /// The model and relationship that hold the reference, for the error.
    let entity: String
    let relationship: String
}

/// What deleting a row must clean up elsewhere, in the same transaction: data the schema sets
/// up when it resolves relationships; ``RelationshipSQL/cleanup(_:)`` is each step's statement.
enum DeleteCleanup: Sendable, Equatable {
    /// The links of join table `joinTable` whose `column` holds the deleted row's key.
    case unlink(joinTable: String, column: String)
    /// `column` of `table` (both quoted), a to-one without an inverse, where it holds the deleted
    /// row's key: set to NULL.
    case clearReference(table: String, column: String)
}

/// An entity's relationship properties by property index: an array lookup, since every write to a
/// model's property asks whether it is a relationship.
struct RelationshipsByColumn {
    private let byColumn: [RelationshipInfo?]
    /// Whether the entity has no relationships.
    let isEmpty: Bool

    init(_ byColumn: [RelationshipInfo?]) {
        self.byColumn = byColumn
        isEmpty = !byColumn.contains { $0 != nil }
    }

    subscript(column: Int) -> RelationshipInfo? {
        byColumn.indices.contains(column) ? byColumn[column] : nil
    }
}

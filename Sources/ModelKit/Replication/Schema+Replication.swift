/// How `ModelKitSync` reads a schema: each property as an attribute or a relationship, and
/// values as the store holds them. Package access only.
extension Schema.Entity {
    /// One persisted property, as replication treats it.
    package struct ReplicaProperty: Sendable {
        package enum Kind: Sendable, Equatable {
            /// A stored value; its `SQLValue` is what the store keeps.
            case attribute
            /// A to-one, optional or not, to `target`.
            case toOne(target: String, isOptional: Bool)
            /// A to-many of `target`.
            case toMany(target: String)
        }
        /// The property's index: its column in ``PersistentModel/_modelKitValue(at:)`` and the
        /// other generated accessors.
        package let index: Int
        package let name: String
        package let kind: Kind
        /// The inverse's name, for a relationship that has one.
        package let inverseName: String?
        /// Whether the inverse is a to-many.
        package let inverseIsToMany: Bool
        /// Whether the property is `.ephemeral`: tracked, never stored.
        package let isEphemeral: Bool
        /// The `originalName:` its attribute declares, if any: the property it takes over in a
        /// migration.
        package let originalName: String?
        /// How the store keeps its values (as the schema's fingerprint names it), with whether
        /// it is optional: equal for two versions of a property whose values move unchanged.
        package let storage: String
    }

    /// The entity's persisted properties, inherited ones first.
    package var replicaProperties: [ReplicaProperty] {
        metadata.indices.map { index in
            let property = metadata[index]
            let relationship = relationshipsByColumn[index]
            let kind: ReplicaProperty.Kind =
                switch relationship?.shape {
                case nil: .attribute
                case .toOne(_, let isOptional)?: .toOne(target: relationship!.target.name, isOptional: isOptional)
                case .toMany?: .toMany(target: relationship!.target.name)
                }
            return ReplicaProperty(
                index: index, name: property.name, kind: kind, inverseName: relationship?.inverse?.name,
                inverseIsToMany: relationship?.inverse?.isToMany ?? false, isEphemeral: property.isEphemeral,
                originalName: property.originalName,
                storage: "\(property.codec?.storageKind ?? "?")\(property.codec?.isOptional == true ? "?" : "")")
        }
    }

    /// Sets the attribute at `index` of `model` from its stored form, through its setter, as an
    /// app's write would (the context records the change).
    /// - Throws: ``ModelKitError/storedValueMismatch(entity:property:expected:found:)`` when
    ///   `value` cannot be the property's type.
    package func assign(_ value: SQLValue, at index: Int, to model: any PersistentModel) throws {
        columns[index].assign(try decode(value, at: index), to: model)
    }
}

extension Schema {
    /// A digest of the schema's entities, properties, storage and constraints: equal for the
    /// same models on every platform.
    package var replicaFingerprint: String { fingerprint }
}

extension PersistentIdentifier {
    /// The row's primary key; nil for a temporary identifier.
    package var rowKey: Int64? { rowID }
}

extension DefaultHistoryToken {
    /// The token's number in its store's history.
    package var number: Int64 { value }

    /// The token numbered `number` of the store `storeIdentifier`.
    package init(replicaStore storeIdentifier: String, number: Int64) {
        self.init(storeIdentifier: storeIdentifier, value: number)
    }
}

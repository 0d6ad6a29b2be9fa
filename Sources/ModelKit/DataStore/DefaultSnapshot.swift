import Foundation

/// A model's stored state as ModelKit hands it to a ``DataStore``: its identifier, and each
/// stored property's value by name (a to-one as its target's ``PersistentIdentifier``, or nil; a
/// to-many as `[PersistentIdentifier]`).
///
/// It is `Codable`: a store can keep snapshots in a file and read them back, in this process or
/// another, once a container of the model types is open there (decoding looks the entity up by
/// the identifier's entity name, for each property's type).
///
/// ```swift
/// let data = try JSONEncoder().encode(snapshots)
/// let read = try JSONDecoder().decode([DefaultSnapshot].self, from: data)
/// ```
public struct DefaultSnapshot: DataStoreSnapshot, @unchecked Sendable {
    /// The identifier of the model the snapshot is of.
    public let persistentIdentifier: PersistentIdentifier
    /// The stored properties' values, by property name: `Codable` values of the model's
    /// property types, which are `Sendable` as ``DataStoreSnapshotValue`` says (the compiler
    /// cannot check that of a value read through a key path, hence the unchecked conformance).
    package let values: [String: any Codable]

    package init(persistentIdentifier: PersistentIdentifier, values: [String: any Codable]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// The snapshot under `persistentIdentifier`, with each identifier its relationships hold
    /// replaced as `remappedIdentifiers` says (none when nil).
    public func copy(
        persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]? = nil
    ) -> DefaultSnapshot {
        guard let remapped = remappedIdentifiers, !remapped.isEmpty else {
            return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values)
        }
        return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.mapValues { Self.remap($0, remapped) })
    }

    /// `value` with the identifiers it holds remapped.
    static func remap(_ value: any Codable, _ remapped: [PersistentIdentifier: PersistentIdentifier]) -> any Codable {
        switch value {
        case let identifier as PersistentIdentifier: return remapped[identifier] ?? identifier
        case let identifier as PersistentIdentifier?: return identifier.map { remapped[$0] ?? $0 }
        case let identifiers as [PersistentIdentifier]: return identifiers.map { remapped[$0] ?? $0 }
        default: return value
        }
    }

    /// Encodes the identifier and each value under its property's name.
    /// - Throws: a value's `EncodingError`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in values {
            try container.encode(value, forKey: .modeledProperty(name))
        }
    }

    /// Decodes a snapshot, reading each property as its model's type has it.
    /// - Throws: `DecodingError.dataCorrupted` when no container of this process has the
    ///   identifier's entity, or a value's `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        let identifier = try container.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        guard let entity = SnapshotEntities.entity(named: identifier.entityName) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath,
                debugDescription: "no ModelContainer in this process has the entity \(identifier.entityName): open one with its model type before decoding its snapshots"))
        }
        var values: [String: any Codable] = [:]
        for property in entity.metadata where !property.isEphemeral {
            let key = DataStoreSnapshotCodingKey.modeledProperty(property.name)
            guard container.contains(key) else { continue }
            switch property.relationshipShape {
            case .toOne?: values[property.name] = try container.decodeIfPresent(PersistentIdentifier.self, forKey: key)
            case .toMany?: values[property.name] = try container.decode([PersistentIdentifier].self, forKey: key)
            case nil:
                guard let type = property.valueType as? any Decodable.Type,
                    let value = try container.decode(type, forKey: key) as? any Codable
                else { continue }
                values[property.name] = value
            }
        }
        self.init(persistentIdentifier: identifier, values: values)
    }
}

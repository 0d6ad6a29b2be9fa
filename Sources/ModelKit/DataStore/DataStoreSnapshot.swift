/// The type of a value a snapshot holds: any `Codable`, `Sendable` value, such as an attribute's
/// value, a to-one's ``PersistentIdentifier`` or a to-many's `[PersistentIdentifier]`.
public typealias DataStoreSnapshotValue = Codable & Sendable

/// A model's stored state, as a ``DataStore`` reads and writes it: its identifier and the values
/// of its properties. ``DefaultSnapshot`` is the one ModelKit makes; SwiftData's
/// `init(from:relatedBackingDatas:)` requirement is left out with `BackingData`.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The identifier of the model the snapshot is of.
    var persistentIdentifier: PersistentIdentifier { get }
    /// The snapshot under another identifier, with the identifiers it holds (its relationships)
    /// replaced as `remappedIdentifiers` says.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> Self
}

/// The keys a snapshot is coded under: its identifier, and each modeled property by name.
public enum DataStoreSnapshotCodingKey: CodingKey, CustomStringConvertible, Sendable {
    /// The snapshot's identifier.
    case persistentIdentifier
    /// The property with the given name.
    case modeledProperty(String)

    private static let identifierKey = "persistentIdentifier"

    /// The key of `stringValue`: the identifier's, or a property's.
    public init?(stringValue: String) {
        self = stringValue == Self.identifierKey ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    /// Nil: snapshot keys are names.
    public init?(intValue: Int) { nil }

    /// The key's name.
    public var stringValue: String {
        switch self {
        case .persistentIdentifier: Self.identifierKey
        case .modeledProperty(let name): name
        }
    }

    /// Nil: snapshot keys are names.
    public var intValue: Int? { nil }

    /// The key's name.
    public var description: String { stringValue }

    /// The key's name and kind.
    public var debugDescription: String {
        switch self {
        case .persistentIdentifier: "DataStoreSnapshotCodingKey.persistentIdentifier"
        case .modeledProperty(let name): "DataStoreSnapshotCodingKey.modeledProperty(\(name))"
        }
    }
}

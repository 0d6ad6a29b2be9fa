import Synchronization

/// Identifies a model across contexts: its entity and its primary key in a store. A model that has
/// not been saved yet has a temporary identifier, replaced by a permanent one when it is saved.
public struct PersistentIdentifier: Hashable, Comparable, Sendable, Codable, Identifiable, CustomStringConvertible {
    // 16 bytes: the entity, the store and whether the key is temporary are shared by every
    // identifier a context makes of them (see ``Scope``), and `didSave` and history hand out one
    // identifier per model.

    enum Key: Hashable, Comparable, Sendable, Codable {
        case temporary(UInt64)
        case row(Int64)
        /// A custom store's key that is not a 64-bit integer: a `UUID`, a `String`, any
        /// `Codable` value (see ``PrimaryKey``).
        case custom(PrimaryKey)
    }

    /// The entity and store an identifier names a row of, and whether its key is a row's primary
    /// key or a temporary identifier's number.
    final class Scope: Sendable {
        let entityName: String
        let storeIdentifier: String?
        let isTemporary: Bool
        /// A custom store's key that is not an integer: then the scope is the identifier's own.
        let primaryKey: PrimaryKey?
        /// The key a container's ``StoreKeys`` last gave the identifier of this scope, tagged
        /// with that table (see ``StoreKeys/key(for:)``): a fetch finds its models' keys without
        /// hashing their identifiers. Zero until then.
        let storeKey = Atomic<Int64>(0)

        init(entityName: String, storeIdentifier: String?, isTemporary: Bool = false, primaryKey: PrimaryKey? = nil) {
            self.entityName = entityName
            self.storeIdentifier = storeIdentifier
            self.isTemporary = isTemporary
            self.primaryKey = primaryKey
        }

        func matches(_ other: Scope) -> Bool {
            self === other
                || (isTemporary == other.isTemporary && entityName == other.entityName && storeIdentifier == other.storeIdentifier
                    && primaryKey == other.primaryKey)
        }

        /// This scope, or the same entity and store for the other kind of key.
        func forKeys(temporary: Bool) -> Scope {
            temporary == isTemporary && primaryKey == nil
                ? self : Scope(entityName: entityName, storeIdentifier: storeIdentifier, isTemporary: temporary)
        }
    }

    let scope: Scope
    /// The key's bits: a row's primary key, or a temporary identifier's number, as the scope says.
    private let bits: Int64

    var key: Key {
        if let primaryKey = scope.primaryKey { return .custom(primaryKey) }
        return scope.isTemporary ? .temporary(UInt64(bitPattern: bits)) : .row(bits)
    }

    /// The model's entity (its class name).
    public var entityName: String { scope.entityName }
    /// The store the model lives in, or nil while it is temporary.
    public var storeIdentifier: String? { scope.storeIdentifier }

    init(scope: Scope, key: Key) {
        switch key {
        case .row(let rowID):
            self.scope = scope.forKeys(temporary: false)
            bits = rowID
        case .temporary(let number):
            self.scope = scope.forKeys(temporary: true)
            bits = Int64(bitPattern: number)
        case .custom(let primaryKey):
            self.scope = Scope(entityName: scope.entityName, storeIdentifier: scope.storeIdentifier, primaryKey: primaryKey)
            bits = 0
        }
    }

    init(entityName: String, storeIdentifier: String?, key: Key) {
        self.init(scope: Scope(entityName: entityName, storeIdentifier: storeIdentifier), key: key)
    }

    /// The value that identifies the model within its store, as in SwiftData.
    public var id: ID { ID(identifier: self) }

    /// The stable identity of a model, as SwiftData's `PersistentIdentifier.ID`: equal for equal
    /// identifiers.
    public struct ID: Hashable, Sendable, Codable {
        let identifier: PersistentIdentifier
    }

    /// Whether the model has not been saved yet.
    public var isTemporary: Bool { scope.isTemporary }

    var rowID: Int64? { scope.isTemporary || scope.primaryKey != nil ? nil : bits }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.bits == rhs.bits && lhs.scope.matches(rhs.scope)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entityName)
        hasher.combine(storeIdentifier)
        hasher.combine(key)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.key) < (rhs.entityName, rhs.key)
    }

    public var description: String {
        switch key {
        case .temporary(let id): "\(entityName)/t\(id)"
        case .row(let id): "\(entityName)/p\(id)"
        case .custom(let key): "\(entityName)/\(key.text)"
        }
    }

    // The coding of the three stored fields this type had before scopes, so that identifiers
    // already encoded decode alike.
    private enum CodingKeys: String, CodingKey {
        case entityName, storeIdentifier, key
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            entityName: try container.decode(String.self, forKey: .entityName),
            storeIdentifier: try container.decodeIfPresent(String.self, forKey: .storeIdentifier),
            key: try container.decode(Key.self, forKey: .key))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entityName, forKey: .entityName)
        try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
        try container.encode(key, forKey: .key)
    }
}

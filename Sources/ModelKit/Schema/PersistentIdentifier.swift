/// Identifies a model across contexts: its entity and its primary key in a store. A model that has
/// not been saved yet has a temporary identifier, replaced by a permanent one when it is saved.
public struct PersistentIdentifier: Hashable, Comparable, Sendable, Codable, Identifiable, CustomStringConvertible {
    enum Key: Hashable, Comparable, Sendable, Codable {
        case temporary(UInt64)
        case row(Int64)
    }

    /// The model's entity (its class name).
    public let entityName: String
    /// The store the model lives in, or nil while it is temporary.
    public let storeIdentifier: String?
    let key: Key

    /// Identifiable conformance: the identifier itself (so `PersistentIdentifier.ID` is
    /// `Hashable` and `Codable`).
    public var id: PersistentIdentifier { self }

    /// Whether the model has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    var rowID: Int64? {
        if case .row(let id) = key { return id }
        return nil
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.key) < (rhs.entityName, rhs.key)
    }

    public var description: String {
        switch key {
        case .temporary(let id): "\(entityName)/t\(id)"
        case .row(let id): "\(entityName)/p\(id)"
        }
    }
}

/// One change of a history transaction: a model inserted, updated or deleted.
public enum HistoryChange: Sendable {
    /// A model was inserted.
    case insert(any HistoryInsert)
    /// A model's attributes changed.
    case update(any HistoryUpdate)
    /// A model was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the model the change is about.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// An insert in a history transaction.
public protocol HistoryInsert<Model>: Sendable {
    /// The inserted model's type.
    associatedtype Model: PersistentModel
    /// The type of ``changeIdentifier``.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's position in its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The inserted model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An update in a history transaction.
public protocol HistoryUpdate<Model>: Sendable {
    /// The updated model's type.
    associatedtype Model: PersistentModel
    /// The type of ``changeIdentifier``.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's position in its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The updated model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The properties the save changed.
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

extension HistoryUpdate {
    /// The type of ``updatedAttributes``' elements.
    public typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
}

/// A delete in a history transaction.
public protocol HistoryDelete<Model>: Sendable {
    /// The deleted model's type.
    associatedtype Model: PersistentModel
    /// The type of ``changeIdentifier``.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's position in its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The deleted model's identifier.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values of the model's `@Attribute(.preserveValueOnDeletion)` properties when it was
    /// deleted.
    var tombstone: HistoryTombstone<Model> { get }
}

import Foundation

/// One committed save, as the store's history records it.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the transaction's token.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable

    /// The ``ModelContext/author`` of the context that saved, if it had one.
    var author: String? { get }
    /// What the save inserted, updated and deleted, in the order the save wrote them.
    var changes: [HistoryChange] { get }
    /// The identifier of the store the transaction was saved to.
    var storeIdentifier: String { get }
    /// When the transaction committed.
    var timestamp: Date { get }
    /// The transaction's position in the store's history.
    var token: TokenType { get }
    /// The transaction's identifier, unique in its store.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A transaction of a ModelKit store's history: one per save, and one per batch delete.
///
/// Fetch them with ``ModelContext/fetchHistory(_:)``. Predicates on ``token``, ``author``,
/// ``timestamp``, ``transactionIdentifier``, ``bundleIdentifier`` and ``processIdentifier`` run
/// in SQL; others (on ``changes``, say) run in Swift on each transaction.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's number in its store.
    public typealias TransactionIdentifier = Int64

    public let transactionIdentifier: Int64
    public let token: DefaultHistoryToken
    public let author: String?
    public let timestamp: Date
    public let storeIdentifier: String
    /// The bundle identifier of the program that saved; on Linux, its process name.
    public let bundleIdentifier: String
    /// The process identifier of the program that saved.
    public let processIdentifier: String
    public let changes: [HistoryChange]

    /// The transaction's identifier.
    public var id: Int64 { transactionIdentifier }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.storeIdentifier == rhs.storeIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactionIdentifier)
        hasher.combine(storeIdentifier)
    }
}

/// A position in a store's history: what a reader keeps to resume where it left off.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The token's value as the store defines it.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The store the token belongs to.
    var storeIdentifier: String { get }
    /// The token's value.
    var tokenValue: TokenType? { get }
}

/// The token of a ModelKit store's history: the number of a transaction. Every save takes the
/// next number, numbers are never reused (not even after ``ModelContext/deleteHistory(_:)``), so
/// tokens of one store are totally ordered by when their transactions committed.
///
/// Keep the last token you processed (it is `Codable`), and fetch the transactions after it:
///
/// ```swift
/// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
/// ```
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The identifier of the store whose history the token points into.
    public let storeIdentifier: String
    /// The transaction's number in the store.
    let value: Int64

    init(storeIdentifier: String, value: Int64) {
        self.storeIdentifier = storeIdentifier
        self.value = value
    }

    /// The transaction number, by store identifier.
    public var tokenValue: [String: Int]? { [storeIdentifier: Int(value)] }

    /// The transaction number.
    public var id: Int { Int(value) }

    /// Orders by transaction number; tokens of different stores, which have no common order, by
    /// store identifier after that, so that the order is total.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.value, lhs.storeIdentifier) < (rhs.value, rhs.storeIdentifier)
    }

    public var description: String { "\(storeIdentifier)/h\(value)" }

    private enum CodingKeys: String, CodingKey {
        case storeIdentifier
        case value
    }
}

/// A token in a predicate compares as its transaction number, the `token` column of the history
/// table.
extension DefaultHistoryToken: SQLBindable {
    var boundValue: SQLValue { .integer(value) }
}

/// An optional token (`after == nil || $0.token > after!`, as a reader with no token yet writes)
/// compares as its transaction number, or NULL.
extension Optional: SQLBindable where Wrapped: SQLBindable {
    var boundValue: SQLValue { map(\.boundValue) ?? .null }
}

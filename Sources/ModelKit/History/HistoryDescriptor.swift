import Foundation

/// Which history transactions to fetch or delete, in what order, and how many.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
/// descriptor.fetchLimit = 100
/// let transactions = try context.fetchHistory(descriptor)
/// ```
public struct HistoryDescriptor<TransactionType: HistoryTransaction> {
    /// Which transactions to include; all of them when nil.
    public var predicate: Predicate<TransactionType>?
    /// The order of the transactions; by token, oldest first, when empty.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// The most transactions to fetch. `UInt64` as in SwiftData; the default, `UInt64.max`,
    /// fetches all of them.
    public var fetchLimit: UInt64

    /// ``fetchLimit`` as a count, nil when it does not limit.
    var limit: Int? { fetchLimit == .max ? nil : Int(clamping: fetchLimit) }

    /// A descriptor for the transactions matching `predicate`, oldest first.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.init(predicate: predicate, sortBy: [])
    }

    /// A descriptor for the transactions matching `predicate`, in the order `sortBy` gives.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        fetchLimit = .max
    }
}

/// A custom ``DataStore`` that keeps a history of its changes: a context's
/// ``ModelContext/fetchHistory(_:)`` and ``ModelContext/deleteHistory(_:)`` ask it for the
/// history of its models.
public protocol HistoryProviding {
    /// The type of the store's history transactions.
    associatedtype HistoryType: HistoryTransaction
    /// The type of the store's history transactions.
    static var historyType: HistoryType.Type { get }
    /// The transactions `descriptor` describes.
    /// - Throws: the store's error.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]
    /// Deletes the transactions `descriptor` describes.
    /// - Throws: the store's error.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
}

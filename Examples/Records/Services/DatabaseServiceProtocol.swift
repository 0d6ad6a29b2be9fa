/// What the app needs from a database of records, whichever provider implements it.
@MainActor
public protocol DatabaseServiceProtocol: AnyObject, Sendable {
    /// Stores `record`, replacing a stored record with the same id. Returns whether it was stored.
    @discardableResult
    func save(_ record: Record) -> Bool

    /// Every record, newest first.
    func allRecords() -> [Record]

    /// The records of one type, newest first.
    func records(ofType type: RecordType) -> [Record]

    /// The sums of income and of expense amounts.
    func totals() -> (income: Double, expense: Double)
}

/// Newest first, and by id among records of the same date, so both services order alike.
func newestFirst(_ lhs: Record, _ rhs: Record) -> Bool {
    lhs.date != rhs.date ? lhs.date > rhs.date : lhs.id.uuidString < rhs.id.uuidString
}

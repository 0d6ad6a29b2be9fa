/// An in-memory database of records, for previews and tests. It follows the same contract as
/// ``SDDatabaseService``, which the shared contract tests check.
@MainActor
public final class MockDatabaseService: DatabaseServiceProtocol {
    private var stored: [Record]

    public init(records: [Record] = []) {
        stored = []
        for record in records { save(record) }
    }

    @discardableResult
    public func save(_ record: Record) -> Bool {
        stored.removeAll { $0.id == record.id }
        stored.append(record)
        return true
    }

    public func allRecords() -> [Record] {
        stored.sorted(by: newestFirst)
    }

    public func records(ofType type: RecordType) -> [Record] {
        allRecords().filter { $0.type == type }
    }

    public func totals() -> (income: Double, expense: Double) {
        stored.reduce((0, 0)) { totals, record in
            record.type == .income ? (totals.0 + record.amount, totals.1) : (totals.0, totals.1 + record.amount)
        }
    }
}

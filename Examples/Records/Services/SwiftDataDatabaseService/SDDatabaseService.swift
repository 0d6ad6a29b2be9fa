import AppState
import Foundation
import SwiftData

/// The records database on SwiftData: ModelKit on Linux, Apple's framework on Apple platforms.
///
/// It owns its container, stored on disk (the default store, or the file at a given URL), and
/// filters and totals in the store rather than in Swift over every row.
@MainActor
public final class SDDatabaseService: DatabaseServiceProtocol {
    public let container: ModelContainer
    lazy var context = ModelContext(container)

    /// A service over the default on-disk store, or over the store file at `url`.
    /// - Throws: what `ModelContainer` throws for a store it cannot open or migrate.
    public nonisolated init(url: URL? = nil) throws {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: false)
        container = try ModelContainer(for: SDRecord.self, configurations: configuration)
    }

    /// Stores the record, replacing a stored record with the same id. Returns false, and logs
    /// the error, when the store refuses.
    @discardableResult
    public func save(_ record: Record) -> Bool {
        let entity = SDRecord(
            id: record.id, recordID: record.id, title: record.title, date: record.date, type: record.type.rawValue,
            amount: record.amount)
        context.insert(entity)
        do {
            try context.save()
            return true
        } catch {
            context.rollback()
            Application.dependency(\.logger).error("could not save record \(record.id): \(error)")
            return false
        }
    }

    public func allRecords() -> [Record] {
        fetch(FetchDescriptor<SDRecord>(sortBy: Self.newestFirst))
    }

    public func records(ofType type: RecordType) -> [Record] {
        let raw = type.rawValue
        return fetch(FetchDescriptor<SDRecord>(predicate: #Predicate { $0.type == raw }, sortBy: Self.newestFirst))
    }

    public func totals() -> (income: Double, expense: Double) {
        (sum(of: .income), sum(of: .expense))
    }

    private static let newestFirst = [SortDescriptor(\SDRecord.date, order: .reverse), SortDescriptor(\SDRecord.id)]

    private func fetch(_ descriptor: FetchDescriptor<SDRecord>) -> [Record] {
        do {
            return try context.fetch(descriptor).map { $0.toRecord() }
        } catch {
            Application.dependency(\.logger).error("could not read records: \(error)")
            return []
        }
    }

    /// The sum of one type's amounts: one `total()` in SQLite with ModelKit; Apple's SwiftData has
    /// no aggregates, so there it sums the fetched amounts.
    private func sum(of type: RecordType) -> Double {
        let raw = type.rawValue
        let predicate = #Predicate<SDRecord> { $0.type == raw }
        do {
            #if canImport(Darwin)
            return try context.fetch(FetchDescriptor(predicate: predicate)).reduce(0) { $0 + $1.amount }
            #else
            return try context.sum(of: \SDRecord.amount, where: predicate)
            #endif
        } catch {
            Application.dependency(\.logger).error("could not total \(raw) records: \(error)")
            return 0
        }
    }
}

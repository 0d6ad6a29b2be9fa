import AppState
import Foundation
import SwiftData
import Testing

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

@testable import Records

/// A database service to test, with the temporary store it may use, removed afterwards.
@MainActor
final class ServiceUnderTest {
    let service: any DatabaseServiceProtocol
    let directory: URL

    var storeURL: URL { directory.appendingPathComponent("records.store") }

    init(_ kind: ServiceKind) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("RecordsTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        service = switch kind {
        case .mock: MockDatabaseService()
        case .swiftData: try SDDatabaseService(url: directory.appendingPathComponent("records.store"))
        }
    }

    /// Removes the store's directory: keep the subject alive for as long as its service is used.
    deinit { try? FileManager.default.removeItem(at: directory) }
}

enum ServiceKind: String, CaseIterable, CustomTestStringConvertible {
    case mock, swiftData
    var testDescription: String { rawValue }
}

func day(_ day: Int) -> Date { Date(timeIntervalSince1970: Double(day) * 86_400) }

/// One contract, run against both services, so the mock cannot drift from the real one.
@MainActor
@Suite struct DatabaseServiceContractTests {
    let salary = Record(title: "Salary", date: day(10), type: .income, amount: 1200)
    let rent = Record(title: "Rent", date: day(12), type: .expense, amount: 700.25)
    let bonus = Record(title: "Bonus", date: day(11), type: .income, amount: 300.5)
    let coffee = Record(title: "Coffee", date: day(12), type: .expense, amount: 3.75)

    func filled(_ kind: ServiceKind) throws -> ServiceUnderTest {
        let subject = try ServiceUnderTest(kind)
        for record in [salary, rent, bonus, coffee] { #expect(subject.service.save(record)) }
        return subject
    }

    @Test(arguments: ServiceKind.allCases)
    func emptyServiceHasNoRecordsAndZeroTotals(kind: ServiceKind) throws {
        let subject = try ServiceUnderTest(kind)
        #expect(subject.service.allRecords().isEmpty)
        #expect(subject.service.records(ofType: .income).isEmpty)
        #expect(subject.service.totals() == (0, 0))
    }

    @Test(arguments: ServiceKind.allCases)
    func savedRecordsReadBackNewestFirst(kind: ServiceKind) throws {
        let subject = try filled(kind)
        let expectedSameDay = [rent, coffee].sorted { $0.id.uuidString < $1.id.uuidString }
        #expect(subject.service.allRecords() == expectedSameDay + [bonus, salary])
    }

    @Test(arguments: ServiceKind.allCases)
    func recordsAreFilteredByType(kind: ServiceKind) throws {
        let subject = try filled(kind)
        #expect(subject.service.records(ofType: .income) == [bonus, salary])
        #expect(Set(subject.service.records(ofType: .expense).map(\.title)) == ["Rent", "Coffee"])
    }

    @Test(arguments: ServiceKind.allCases)
    func totalsSumEachType(kind: ServiceKind) throws {
        let subject = try filled(kind)
        let totals = subject.service.totals()
        #expect(totals.income == 1500.5)
        #expect(totals.expense == 704)
    }

    @Test(arguments: ServiceKind.allCases)
    func savingARecordAgainReplacesIt(kind: ServiceKind) throws {
        let subject = try filled(kind)
        var changed = rent
        changed.amount = 650
        changed.title = "Rent (discounted)"
        #expect(subject.service.save(changed))
        #expect(subject.service.allRecords().count == 4)
        #expect(subject.service.allRecords().first { $0.id == rent.id } == changed)
        #expect(subject.service.totals().expense == 653.75)
    }
}

@MainActor
@Suite struct SDDatabaseServiceTests {
    @Test func recordsSurviveANewServiceOnTheSameFile() throws {
        let subject = try ServiceUnderTest(.swiftData)
        let record = Record(title: "Kept", date: day(3), type: .income, amount: 10)
        #expect(subject.service.save(record))
        #expect(try SDDatabaseService(url: subject.storeURL).allRecords() == [record])
    }

    @Test func filteringAndTotalsRunInTheStore() throws {
        let subject = try ServiceUnderTest(.swiftData)
        let service = subject.service as! SDDatabaseService
        defer { withExtendedLifetime(subject) {} }
        service.save(Record(title: "a", date: day(1), type: .income, amount: 5))
        var statements: [String] = []
        service.context.statementTrace = { statements.append($0) }
        _ = service.records(ofType: .income)
        _ = service.totals()
        #expect(statements.contains { $0.contains(#"WHERE ("SDRecord"."type" IS ?)"#) && $0.hasPrefix("SELECT") })
        #expect(statements.filter { $0.hasPrefix(#"SELECT total("amount")"#) }.count == 2)
    }

    @Test func unknownStoredTypeReadsAsExpenseWithAWarning() throws {
        let subject = try ServiceUnderTest(.swiftData)
        let service = subject.service as! SDDatabaseService
        defer { withExtendedLifetime(subject) {} }
        let id = UUID()
        service.context.insert(SDRecord(id: id, recordID: id, title: "Refund", date: day(1), type: "refund", amount: 9))
        try service.context.save()
        let log = ApplicationLogger.Recorder()
        let records = Application.withIsolatedScope {
            let token = Application.override(\.logger, with: log.logger)
            defer { withExtendedLifetime(token) {} }
            return service.allRecords()
        }
        #expect(records.map(\.type) == [.expense])
        #expect(log.messages(at: .warning).contains { $0.contains("unknown type 'refund'") })
    }

    @Test func refusedSaveReturnsFalseLogsAndLeavesTheStoreAsItWas() throws {
        let subject = try ServiceUnderTest(.swiftData)
        let service = subject.service as! SDDatabaseService
        defer { withExtendedLifetime(subject) {} }
        #expect(service.save(Record(title: "first", date: day(1), type: .income, amount: 1)))
        var db: OpaquePointer?
        _ = sqlite3_open(subject.storeURL.path, &db)
        _ = sqlite3_exec(db, "CREATE TRIGGER refuse BEFORE INSERT ON SDRecord BEGIN SELECT RAISE(ABORT, 'refused'); END", nil, nil, nil)
        sqlite3_close(db)
        let log = ApplicationLogger.Recorder()
        let saved = Application.withIsolatedScope {
            let token = Application.override(\.logger, with: log.logger)
            defer { withExtendedLifetime(token) {} }
            return service.save(Record(title: "second", date: day(2), type: .income, amount: 2))
        }
        #expect(!saved)
        #expect(log.messages(at: .error).first?.contains("refused") == true)
        #expect(service.allRecords().map(\.title) == ["first"])
        #expect(!service.context.hasChanges)
    }

    @Test func theMockReplacesTheServiceThroughAnOverride() {
        let mock = MockDatabaseService(records: [Record(title: "mocked", date: day(1), type: .expense, amount: 1)])
        Application.withIsolatedScope {
            let token = Application.override(\.database, with: mock)
            #expect(Application.dependency(\.database).allRecords().map(\.title) == ["mocked"])
            withExtendedLifetime(token) {}
        }
    }
}

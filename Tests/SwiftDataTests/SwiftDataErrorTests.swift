import Foundation
import SwiftData
import Testing

/// `catch let error as SwiftDataError` works as with SwiftData, and ModelKit's details ride along.
@Suite struct SwiftDataErrorTests {
    @Test func aFileThatIsNotAStoreIsALoadIssueCarryingModelKitsDetails() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("SwiftDataErrorTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("notes.store")
        try Data("not a database, just text".utf8).write(to: url)
        do {
            _ = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
            Issue.record("opened a text file")
        } catch let error as SwiftDataError where error == .loadIssueModelContainer {
            guard case .notADatabase(let file, _)? = error.underlying else {
                Issue.record("no detail: \(error)")
                return
            }
            #expect(file == url)
            #expect("\(error)".contains("not a readable SQLite database"))
        }
    }

    @Test func aBadConfigurationNameIsTheSwiftDataErrorForIt() {
        #expect(throws: SwiftDataError.configurationFileNameContainsInvalidCharacters) {
            try ModelContainer(for: Item.self, configurations: ModelConfiguration("../outside"))
        }
    }

    @Test func anExpiredHistoryTokenIsTheSwiftDataErrorForIt() throws {
        let container = try ModelContainer(for: Visit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Visit(place: "Lyon", nights: 1))
        try context.save()
        let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        context.insert(Visit(place: "Metz", nights: 1))
        try context.save()
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        }
    }
}

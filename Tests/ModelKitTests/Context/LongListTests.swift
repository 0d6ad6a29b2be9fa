import Foundation
import Testing

@testable import ModelKit

@Model final class Tagged {
    var number: Int
    var token: UUID
    var label: String
    init(number: Int, token: UUID, label: String) {
        self.number = number
        self.token = token
        self.label = label
    }
}

/// Lists longer than SQLite's parameter limit, and statement caches that stay bounded.
@Suite struct LongListTests {
    @Test func containsOverFortyThousandValuesRunsInSQL() throws {
        let context = ModelContext(try inMemoryContainer(for: Tagged.self))
        let tokens = (0..<10).map { _ in UUID() }
        for (index, token) in tokens.enumerated() { context.insert(Tagged(number: index, token: token, label: "#\(index)")) }
        try context.save()

        let numbers = Array(stride(from: 0, to: 80_000, by: 2))  // 40,000 values: every even number
        #expect(try context.fetch(FetchDescriptor<Tagged>(predicate: #Predicate { numbers.contains($0.number) }, sortBy: [SortDescriptor(\.number)])).map(\.number) == [0, 2, 4, 6, 8])
        let wanted = [tokens[3], tokens[7]] + (0..<40_000).map { _ in UUID() }
        #expect(Set(try context.fetch(FetchDescriptor<Tagged>(predicate: #Predicate { wanted.contains($0.token) })).map(\.number)) == [3, 7])
        let labels = ["#1", "#9", "it's \"quoted\""] + (0..<40_000).map { "label \($0)" }
        #expect(try context.fetchCount(FetchDescriptor<Tagged>(predicate: #Predicate { labels.contains($0.label) })) == 2)
    }

    @Test func theStatementCacheStaysBoundedAndKeepsWorking() throws {
        let context = ModelContext(try inMemoryContainer(for: Tagged.self))
        let connection = try context.reader(of: context.links[0]).connection
        for value in 0..<1_000 {
            #expect(try connection.statement("SELECT \(value)").rows() == [[.integer(Int64(value))]])
        }
        #expect(connection.cachedStatementCount <= Connection.statementCacheLimit)
        #expect(try context.fetchCount(FetchDescriptor<Tagged>()) == 0)
    }
}

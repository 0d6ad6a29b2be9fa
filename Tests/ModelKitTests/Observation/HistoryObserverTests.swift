import Foundation
import ModelKit
import Observation
import TestSupport
import Testing

/// `HistoryObserver` (iOS 27): its counter goes up for transactions by the given authors that
/// touch the observed types, from this process, other processes and other PostgreSQL instances,
/// and not for others; it keeps a token per store.
@MainActor @Suite struct HistoryObserverTests {
    @Test(arguments: StoreKind.withPostgres)
    func theCounterCountsTransactionsOfTheObservedTypesByTheGivenAuthors(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Novel.self, TodoItem.self)
        let observer = try HistoryObserver(observedModels: [Novel.self], authors: ["app"], modelContainer: container)
        #expect(observer.eventCounter == 0)
        let changes = ChangeCounter { _ = observer.eventCounter }
        let app = ModelContext(container)
        app.author = "app"
        let sync = ModelContext(container)
        sync.author = "sync"

        app.insert(TodoItem(title: "another type"))
        try app.save()
        sync.insert(Novel("another author"))
        try sync.save()
        #expect(await changes.staysQuiet())
        #expect(observer.eventCounter == 0)

        app.insert(Novel("Emma"))
        try app.save()
        #expect(await changes.wait())
        #expect(observer.eventCounter == 1)
    }

    @Test func withoutModelsOrAuthorsEveryTransactionCounts() async throws {
        let container = try inMemoryContainer(for: Novel.self, TodoItem.self)
        let observer = try HistoryObserver(modelContainer: container)
        let changes = ChangeCounter { _ = observer.eventCounter }
        let context = ModelContext(container)
        context.insert(TodoItem(title: "any"))
        try context.save()
        #expect(await changes.wait())
        #expect(observer.observedModels.isEmpty)
        #expect(observer.modelContainer === container)
    }

    @Test func givenTokensTransactionsAfterThemCountAtTheFirstSave() async throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Novel.self)
        let context = ModelContext(container)
        context.insert(Novel("before"))
        try context.save()
        let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        context.insert(Novel("missed while away"))
        try context.save()

        // Resuming from the saved token: the next save's check reads both transactions after it.
        let observer = try HistoryObserver(
            historyTokens: [token.storeIdentifier: token], observedModels: [Novel.self], modelContainer: container)
        let changes = ChangeCounter { _ = observer.eventCounter }
        context.insert(Novel("now"))
        try context.save()
        #expect(await changes.wait())
        #expect(observer.eventCounter == 1)
    }

    @Test func aTokenOfAStoreTheContainerDoesNotHaveIsRefused() throws {
        let container = try inMemoryContainer(for: Novel.self)
        let context = ModelContext(container)
        context.insert(Novel("x"))
        try context.save()
        let other = try inMemoryContainer(for: Novel.self)
        let otherContext = ModelContext(other)
        otherContext.insert(Novel("y"))
        try otherContext.save()
        let foreign = try #require(try otherContext.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        #expect(throws: ModelKitError.self) {
            try HistoryObserver(historyTokens: [foreign.storeIdentifier: foreign], modelContainer: container)
        }
    }

    @Test func anotherProcessesSaveCountsWithItsAuthor() async throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Entry.self)
        let observer = try HistoryObserver(observedModels: [Entry.self], authors: ["crash-writer"], modelContainer: container)
        let changes = ChangeCounter { _ = observer.eventCounter }

        let process = try runCrashWriter(at: store.url, saves: 2)
        #expect(process.waitUntilExit() == .exit(0))
        #expect(await changes.wait())
    }

    @Test(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
    func anotherPostgresInstancesSaveCounts() async throws {
        let database = PostgresTestDatabase()
        let here = try database.container(for: Novel.self, instance: 1)
        let there = try database.container(for: Novel.self, instance: 2)
        let observer = try HistoryObserver(observedModels: [Novel.self], modelContainer: here)
        let changes = ChangeCounter { _ = observer.eventCounter }

        let writer = ModelContext(there)
        writer.author = "instance 2"
        writer.insert(Novel("Middlemarch"))
        try writer.save()
        #expect(await changes.wait())
        #expect(observer.eventCounter == 1)
    }

    @Test(arguments: StoreKind.withPostgres)
    func theNewestTokenIsOneQueryWithSortByAndFetchLimit(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Novel.self))
        for title in ["a", "b", "c"] {
            context.insert(Novel(title))
            try context.save()
        }
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.sortBy = [SortDescriptor(\.token, order: .reverse)]
        descriptor.fetchLimit = 1
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let newest = try context.fetchHistory(descriptor)
        #expect(newest.count == 1)
        #expect(newest.first?.token == (try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())).last?.token)
        #expect(statements.contains { $0.contains("LIMIT") && $0.contains("DESC") }, "sorted and limited in SQL")
    }
}

/// A released history observer stops checking: nothing keeps it alive.
@Suite struct HistoryObserverLifetimeTests {
    @Test func aReleasedObserverIsGone() throws {
        let container = try inMemoryContainer(for: Novel.self)
        weak var released: HistoryObserver?
        do {
            let observer = try HistoryObserver(modelContainer: container)
            released = observer
        }
        #expect(released == nil)
        let context = ModelContext(container)
        context.insert(Novel("after"))
        try context.save()
    }
}

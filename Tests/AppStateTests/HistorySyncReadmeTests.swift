import AppState
import Foundation
import SwiftData
import Testing

// The sync loop of the DocC article *Syncing through history*, verbatim: if this stops compiling,
// the article is wrong.

extension Application {
    var lastSyncedToken: StoredState<DefaultHistoryToken?> { storedState(initial: nil, id: "lastSyncedToken") }
}

/// Sends what changed since the last sync, then remembers where it stopped. Changes the sync
/// itself saved (author "sync") are not sent back.
@MainActor
func syncChanges(from container: ModelContainer, send: ([HistoryChange]) throws -> Void) throws {
    let context = ModelContext(container)
    let lastSynced = Application.storedState(\.lastSyncedToken)
    var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    if let token = lastSynced.value {
        descriptor.predicate = #Predicate { $0.token > token }
    }
    for transaction in try context.fetchHistory(descriptor) {
        if transaction.author != "sync" { try send(transaction.changes) }
        lastSynced.value = transaction.token
    }
}

@MainActor
@Suite struct HistorySyncReadmeTests {
    @Test func theSyncLoopSendsEachChangeOnceAndSkipsItsOwnWrites() throws {
        try Application.withIsolatedScope {
            Application.reset(storedState: \.lastSyncedToken)
            defer { Application.reset(storedState: \.lastSyncedToken) }
            let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let app = ModelContext(container)
            app.insert(Item(title: "a"))
            app.insert(Item(title: "b"))
            try app.save()

            var sent: [[HistoryChange]] = []
            try syncChanges(from: container) { sent.append($0) }
            #expect(sent.map(\.count) == [2])
            try syncChanges(from: container) { sent.append($0) }
            #expect(sent.count == 1, "nothing new since the kept token")

            let sync = ModelContext(container)
            sync.author = "sync"
            sync.insert(Item(title: "from the server"))
            try sync.save()
            app.insert(Item(title: "c"))
            try app.save()
            try syncChanges(from: container) { sent.append($0) }
            #expect(sent.map(\.count) == [2, 1], "the sync's own save is skipped, the app's is sent")
            let kept = try #require(Application.storedState(\.lastSyncedToken).value)
            #expect(try app.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token == kept)
        }
    }
}

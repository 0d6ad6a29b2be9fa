import Foundation
import ModelKit
import Observation
import Testing

@ModelActor
actor Reprioritizer {
    func setPriority(_ priority: Int, of identifier: PersistentIdentifier) throws {
        guard let item = self[identifier, as: TodoItem.self] else { return }
        item.priority = priority
        try modelContext.save()
    }
}

/// Several contexts on one on-disk store: what one saves, the others see, on the same instances.
@Suite struct ContextMergeTests {
    func storedItem(_ store: TestStore, priority: Int = 5) throws -> (ModelContainer, PersistentIdentifier) {
        let container = try store.container(for: TodoItem.self)
        let seeding = ModelContext(container)
        let item = TodoItem(title: "gauge")
        item.priority = priority
        seeding.insert(item)
        try seeding.save()
        return (container, item.persistentModelID)
    }

    @Test(arguments: StoreKind.sharedStores) func aRefetchReturnsTheSameInstanceWithTheValueAnotherContextSaved(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, _) = try storedItem(store)
        let a = ModelContext(container)
        let b = ModelContext(container)
        let seenByA = try #require(try a.fetch(FetchDescriptor<TodoItem>()).first)
        try #require(try b.fetch(FetchDescriptor<TodoItem>()).first).priority = 6
        try b.save()
        let refetched = try #require(try a.fetch(FetchDescriptor<TodoItem>()).first)
        #expect(refetched === seenByA)
        #expect(seenByA.priority == 6)
        #expect(!a.hasChanges)
    }

    @Test(arguments: StoreKind.sharedStores) func anyReadMergesOtherContextsSavesIntoRegisteredModels(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, id) = try storedItem(store)
        let a = ModelContext(container)
        let held = try #require(a.model(for: id) as? TodoItem)
        let b = ModelContext(container)
        try #require(b.model(for: id) as? TodoItem).title = "renamed"
        try b.save()
        // A count of another predicate reads no TodoItem row, yet the held instance follows.
        _ = try a.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.priority > 100 }))
        #expect(held.title == "renamed")
    }

    @Test(arguments: StoreKind.sharedStores) func aRowDeletedElsewhereIsMarkedDeletedAndLeavesTheContext(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, id) = try storedItem(store)
        let a = ModelContext(container)
        let held = try #require(a.model(for: id) as? TodoItem)
        let b = ModelContext(container)
        b.delete(try #require(b.model(for: id) as? TodoItem))
        try b.save()
        #expect(try a.fetch(FetchDescriptor<TodoItem>()).isEmpty)
        #expect(held.isDeleted)
        #expect(a.registeredModel(for: id) as TodoItem? == nil)
        #expect(!a.hasChanges)
    }

    @Test(arguments: StoreKind.sharedStores) func unsavedChangesSurviveAMergeAndTheLastWriterWinsPerProperty(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, id) = try storedItem(store)
        let a = ModelContext(container)
        let mine = try #require(a.model(for: id) as? TodoItem)
        mine.title = "A's title"
        let b = ModelContext(container)
        let theirs = try #require(b.model(for: id) as? TodoItem)
        theirs.priority = 9
        theirs.title = "B's title"
        try b.save()
        #expect(try a.fetch(FetchDescriptor<TodoItem>()).first === mine)
        #expect(mine.title == "A's title", "unsaved changes stay")
        #expect(mine.priority == 9, "properties A did not change follow the store")
        try a.save()
        let fresh = try #require(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).first)
        #expect(fresh.title == "A's title")
        #expect(fresh.priority == 9)
    }

    @Test func commitsOfAnotherConnectionAreNoticedOnTheNextFetch() throws {
        let store = try TestStore(.onDisk)
        let (container, id) = try storedItem(store)
        let context = ModelContext(container)
        let held = try #require(context.model(for: id) as? TodoItem)
        _ = try store.sql("UPDATE \"TodoItem\" SET priority = 42")
        #expect(try context.fetch(FetchDescriptor<TodoItem>()).first === held)
        #expect(held.priority == 42)
        _ = try store.sql("DELETE FROM \"TodoItem\"")
        #expect(try context.fetchCount(FetchDescriptor<TodoItem>()) == 0)
        #expect(held.isDeleted)
    }

    @MainActor
    @Test(arguments: StoreKind.sharedStores) func theMainContextSeesAModelActorsSaveWithoutRefetching(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let (container, id) = try storedItem(store)
        let shown = try #require(container.mainContext.model(for: id) as? TodoItem)
        let observed = Observed()
        withObservationTracking { _ = shown.priority } onChange: { observed.fire() }
        try await Reprioritizer(modelContainer: container).setPriority(7, of: id)
        // The merge is scheduled on the main actor as the actor's save lands.
        for _ in 0..<1000 where shown.priority != 7 { await Task.yield() }
        #expect(shown.priority == 7)
        #expect(observed.fired)
        #expect(try container.mainContext.fetch(FetchDescriptor<TodoItem>()).first === shown)
    }

    @Test(arguments: StoreKind.sharedStores) func aModelActorSeesTheMainContextsSave(kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let (container, id) = try storedItem(store)
        let importer = Importer(modelContainer: container)
        #expect(await importer.title(of: id) == "gauge")
        try await MainActor.run {
            let item = try #require(container.mainContext.model(for: id) as? TodoItem)
            item.title = "edited on main"
            try container.mainContext.save()
        }
        #expect(await importer.title(of: id) == "edited on main")
    }
}

/// Whether an observation fired, from any thread.
final class Observed: @unchecked Sendable {
    private let lock = NSLock()
    private var didFire = false
    var fired: Bool { lock.withLock { didFire } }
    func fire() { lock.withLock { didFire = true } }
}

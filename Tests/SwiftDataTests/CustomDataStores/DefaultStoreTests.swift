import Foundation
import SwiftData
import Testing

/// The SQLite store driven through the `DataStore` protocol, as code that wraps stores does.
@Suite struct DefaultStoreTests {
    static func open() throws -> DefaultStore {
        try DefaultStore(ModelConfiguration(schema: Schema([MemoryNote.self, MemoryFolder.self]), isStoredInMemoryOnly: true), migrationPlan: nil)
    }

    static func note(_ title: String, _ words: Int, folder: PersistentIdentifier? = nil) -> DefaultSnapshot {
        let temporary = try! PersistentIdentifier.identifier(for: "new", entityName: "MemoryNote", primaryKey: UUID())
        return DefaultSnapshot(persistentIdentifier: temporary, values: ["title": title, "words": words, "folder": folder])
    }

    @Test func savesFetchesCountsAndDeletesSnapshotsInSQLite() throws {
        let store = try Self.open()
        #expect(ModelConfiguration.Store.self == DefaultStore.self)
        let state = EditingState(author: "test")
        let inserted = [Self.note("a", 10), Self.note("b", 20), Self.note("c", 30)]
        let saved = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: inserted, updated: [], deleted: []))
        #expect(saved.storeIdentifier == store.identifier)
        #expect(saved.remappedIdentifiers.count == 3)
        #expect(saved.historyToken != nil)
        let permanent = inserted.map { saved.remappedIdentifiers[$0.persistentIdentifier]! }
        #expect(permanent.allSatisfy { !$0.isTemporary && $0.storeIdentifier == store.identifier })

        let request = DataStoreFetchRequest(
            descriptor: FetchDescriptor<MemoryNote>(predicate: #Predicate { $0.words > 15 }, sortBy: [SortDescriptor(\.words, order: .reverse)]),
            editingState: state)
        let fetched = try store.fetch(request)
        #expect(fetched.fetchedSnapshots.map(\.persistentIdentifier) == [permanent[2], permanent[1]])
        #expect(fetched.fetchedSnapshots.first?.values["title"] as? String == "c")
        #expect(try store.fetchCount(request) == 2)
        #expect(try store.fetchIdentifiers(request) == [permanent[2], permanent[1]])

        let updated = fetched.fetchedSnapshots[0].copy(persistentIdentifier: permanent[2])
        let renamed = DefaultSnapshot(persistentIdentifier: updated.persistentIdentifier, values: ["title": "C", "words": 35])
        _ = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: [], updated: [renamed], deleted: [inserted[0].copy(persistentIdentifier: permanent[0])]))
        let all = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<MemoryNote>(sortBy: [SortDescriptor(\.words)]), editingState: state))
        #expect(all.fetchedSnapshots.map { $0.values["title"] as? String } == ["b", "C"])

        try store.delete(DataStoreBatchDeleteRequest(editingState: state, includeSubclasses: true, predicate: #Predicate<MemoryNote> { $0.words < 30 }))
        #expect(try store.fetchCount(DataStoreFetchRequest(descriptor: FetchDescriptor<MemoryNote>(), editingState: state)) == 1)
        #expect(try store.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
        #expect(DefaultStore.historyType == DefaultHistoryTransaction.self)
        try store.erase()
        #expect(try store.fetchCount(DataStoreFetchRequest(descriptor: FetchDescriptor<MemoryNote>(), editingState: state)) == 0)
    }

    @Test func relationshipsTravelAsIdentifiers() throws {
        let store = try Self.open()
        let state = EditingState()
        let folder = DefaultSnapshot(
            persistentIdentifier: try PersistentIdentifier.identifier(for: "new", entityName: "MemoryFolder", primaryKey: UUID()),
            values: ["name": "Work"])
        let note = Self.note("plan", 5, folder: folder.persistentIdentifier)
        let saved = try store.save(DataStoreSaveChangesRequest(editingState: state, inserted: [folder, note], updated: [], deleted: []))
        let fetched = try store.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<MemoryFolder>(), editingState: state))
        #expect(fetched.fetchedSnapshots.first?.values["notes"] as? [PersistentIdentifier] == [saved.remappedIdentifiers[note.persistentIdentifier]!])
    }

    @Test func aConfigurationWithoutASchemaIsRefused() {
        #expect(throws: (any Error).self) { _ = try DefaultStore(ModelConfiguration(isStoredInMemoryOnly: true), migrationPlan: nil) }
    }
}

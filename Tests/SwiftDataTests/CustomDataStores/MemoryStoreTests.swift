import Foundation
import SwiftData
import Testing

@Model final class MemoryNote {
    var title: String
    var words: Int
    var folder: MemoryFolder?

    init(title: String, words: Int) {
        self.title = title
        self.words = words
    }
}

@Model final class MemoryFolder {
    var name: String
    @Relationship(inverse: \MemoryNote.folder) var notes: [MemoryNote] = []

    init(name: String) { self.name = name }
}

@Model final class LocalSetting {
    var key: String
    var value: String

    init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// A store that batches deletes and keeps history, and a container mixing it with SQLite.
@Suite struct MemoryStoreTests {
    static func configuration() -> MemoryStoreConfiguration {
        MemoryStoreConfiguration(name: UUID().uuidString, schema: Schema([MemoryNote.self, MemoryFolder.self]))
    }

    @Test func oneContainerKeepsSomeModelsInSQLiteAndOthersInACustomStore() throws {
        let memory = Self.configuration()
        let sqlite = ModelConfiguration("settings", schema: Schema([LocalSetting.self]), isStoredInMemoryOnly: true)
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, LocalSetting.self, configurations: memory, sqlite)
        let context = ModelContext(container)
        let folder = MemoryFolder(name: "Work")
        context.insert(folder)
        folder.notes.append(MemoryNote(title: "Plan", words: 120))
        context.insert(LocalSetting(key: "theme", value: "dark"))
        try context.save()

        let state = MemoryStoreState.named(memory.name)
        #expect(state.snapshots.count == 2)
        #expect(folder.persistentModelID.storeIdentifier == "memory-\(memory.name)")
        #expect(folder.persistentModelID.description == "MemoryFolder/m-1")
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<LocalSetting>()).map(\.value) == ["dark"])
        let notes = try fresh.fetch(FetchDescriptor<MemoryNote>())
        #expect(notes.map(\.title) == ["Plan"])
        #expect(notes.first?.folder?.name == "Work")
        #expect(notes.first?.folder?.notes.map(\.title) == ["Plan"])
        #expect(try fresh.fetch(FetchDescriptor<LocalSetting>()).first?.persistentModelID.storeIdentifier == container.storeIdentifier(forConfigurationNamed: "settings"))
    }

    @Test func theStorePagesWhatItFetchesAndTheContextFiltersTheRest() throws {
        let memory = Self.configuration()
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, configurations: memory)
        let context = ModelContext(container)
        for (index, words) in [300, 100, 200, 50].enumerated() { context.insert(MemoryNote(title: "n\(index)", words: words)) }
        try context.save()
        let fresh = ModelContext(container)
        var paged = FetchDescriptor<MemoryNote>()
        paged.fetchOffset = 1
        paged.fetchLimit = 2
        #expect(try fresh.fetch(paged).map(\.title) == ["n1", "n2"])
        var filtered = FetchDescriptor<MemoryNote>(predicate: #Predicate { $0.words >= 100 }, sortBy: [SortDescriptor(\.words)])
        filtered.fetchLimit = 2
        #expect(try fresh.fetch(filtered).map(\.words) == [100, 200])
        #expect(try fresh.fetchCount(FetchDescriptor<MemoryNote>(predicate: #Predicate { $0.words < 150 })) == 2)
    }

    @Test func batchDeletesGoToAStoreThatBatchesThemAndTheRestRunInMemory() throws {
        let memory = Self.configuration()
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, configurations: memory)
        let context = ModelContext(container)
        for words in [10, 20, 30] { context.insert(MemoryNote(title: "\(words)", words: words)) }
        context.insert(MemoryFolder(name: "Kept"))
        try context.save()
        let state = MemoryStoreState.named(memory.name)

        try context.delete(model: MemoryNote.self, where: #Predicate { $0.words > 15 })
        #expect(state.batchDeletes == 1)  // refused by the store, then done by a save
        #expect(try ModelContext(container).fetch(FetchDescriptor<MemoryNote>()).map(\.words) == [10])

        let remaining = try #require(try context.fetch(FetchDescriptor<MemoryNote>()).first)
        try context.delete(model: MemoryNote.self)
        #expect(state.batchDeletes == 2)
        #expect(remaining.isDeleted)
        #expect(try ModelContext(container).fetch(FetchDescriptor<MemoryNote>()).isEmpty)
        #expect(try ModelContext(container).fetch(FetchDescriptor<MemoryFolder>()).map(\.name) == ["Kept"])
    }

    @Test func eachContextIsAnEditingStateTheStoreHearsOf() throws {
        let memory = Self.configuration()
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, configurations: memory)
        let state = MemoryStoreState.named(memory.name)
        var id: UUID?
        do {
            let context = ModelContext(container)
            context.author = "importer"
            id = context.editingState.id
            #expect(context.editingState.id == id && context.editingState.author == "importer")
            context.insert(MemoryNote(title: "a", words: 1))
            try context.save()
            #expect(state.initialized == [id!])
            #expect(state.history.last?.author == "importer")
        }
        #expect(state.invalidated == [id!])
    }

    @Test func historyComesFromAStoreThatProvidesIt() throws {
        let memory = Self.configuration()
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, configurations: memory)
        let context = ModelContext(container)
        context.insert(MemoryNote(title: "a", words: 1))
        try context.save()
        context.insert(MemoryNote(title: "b", words: 2))
        context.insert(MemoryNote(title: "c", words: 3))
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<MemoryTransaction>())
        #expect(history.map(\.inserted) == [1, 2])
        try context.deleteHistory(HistoryDescriptor<MemoryTransaction>())
        #expect(try context.fetchHistory(HistoryDescriptor<MemoryTransaction>()).isEmpty)
    }

    @Test func rollbackAndModelForIdentifierReadTheStoresSnapshots() throws {
        let memory = Self.configuration()
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, configurations: memory)
        let context = ModelContext(container)
        let note = MemoryNote(title: "draft", words: 5)
        context.insert(note)
        try context.save()
        note.title = "changed"
        context.rollback()
        #expect(note.title == "draft" && !note.isDeleted && !context.hasChanges)
        let other = ModelContext(container)
        #expect((other.model(for: note.persistentModelID) as? MemoryNote)?.words == 5)
        #expect(other.registeredModel(for: note.persistentModelID) as MemoryNote? != nil)
        try container.erase()
        #expect(try ModelContext(container).fetch(FetchDescriptor<MemoryNote>()).isEmpty)
    }

    @Test func snapshotsTheStoreChangedWhileSavingAreTheModelsValues() throws {
        let memory = Self.configuration()
        let container = try ModelContainer(for: MemoryNote.self, MemoryFolder.self, configurations: memory)
        let context = ModelContext(container)
        let note = MemoryNote(title: "  padded  ", words: 3)
        context.insert(note)
        try context.save()
        #expect(note.title == "padded")
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<MemoryNote>()).map(\.title) == ["padded"])
    }

    @Test func aClassHierarchyIsRefusedWithAClearError() throws {
        let memory = MemoryStoreConfiguration(name: UUID().uuidString)
        #expect {
            _ = try ModelContainer(for: SampleTrips.Trip.self, SampleTrips.BusinessTrip.self, configurations: memory)
        } throws: { error in
            "\(error)".contains("class hierarchy")
        }
    }
}

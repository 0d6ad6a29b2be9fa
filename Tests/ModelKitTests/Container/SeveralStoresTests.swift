import Foundation
import Synchronization
import Testing
@testable import ModelKit

@Model final class CachedReading {
    var sensor: String
    var value: Double
    init(sensor: String, value: Double) {
        self.sensor = sensor
        self.value = value
    }
}

/// Containers of several configurations, as SwiftData users write them: each configuration's
/// models live in its own store.
@Suite struct SeveralStoresTests {
    /// Two store files in one temporary directory, removed afterwards.
    final class TwoFiles {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("SeveralStores-\(UUID().uuidString)")
        var notes: URL { directory.appendingPathComponent("notes.store") }
        var cache: URL { directory.appendingPathComponent("cache.store") }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func container(cacheAllowsSave: Bool = true) throws -> ModelContainer {
            let notes = ModelConfiguration("Notes", schema: Schema([Note.self]), url: notes)
            let cache = ModelConfiguration("Cache", schema: Schema([CachedReading.self]), url: cache, allowsSave: cacheAllowsSave)
            return try ModelContainer(for: Note.self, CachedReading.self, configurations: notes, cache)
        }

        /// The tables of a store file, read outside ModelKit.
        func tables(of url: URL) throws -> Set<String> {
            Set(try rawSQL("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name != 'sqlite_sequence'", at: url).map { $0[0] })
        }

        func count(_ table: String, in url: URL) throws -> Int {
            Int(try rawSQL("SELECT COUNT(*) FROM \(table)", at: url)[0][0])!
        }
    }

    @Test func eachConfigurationsModelsAreStoredInItsOwnFileAndReadBackAfterReopening() throws {
        let files = TwoFiles()
        do {
            let container = try files.container()
            #expect(container.configurations.count == 2)
            let context = ModelContext(container)
            context.insert(Note(text: "buy milk"))
            context.insert(CachedReading(sensor: "t1", value: 21.5))
            try context.save()
        }
        #expect(try files.tables(of: files.notes) == ["Note"])
        #expect(try files.tables(of: files.cache) == ["CachedReading"])
        #expect(try files.count("Note", in: files.notes) == 1)
        #expect(try files.count("CachedReading", in: files.cache) == 1)

        let context = ModelContext(try files.container())
        #expect(try context.fetch(FetchDescriptor<Note>()).map(\.text) == ["buy milk"])
        #expect(try context.fetch(FetchDescriptor<CachedReading>()).map(\.value) == [21.5])
    }

    @Test func identifiersNameTheirOwnStoreAndFindTheirModels() throws {
        let files = TwoFiles()
        let container = try files.container()
        let context = ModelContext(container)
        let note = Note(text: "a")
        let reading = CachedReading(sensor: "t1", value: 1)
        context.insert(note)
        context.insert(reading)
        try context.save()
        #expect(note.persistentModelID.storeIdentifier != reading.persistentModelID.storeIdentifier)

        let other = ModelContext(container)
        #expect((other.model(for: note.persistentModelID) as? Note)?.text == "a")
        #expect((other.model(for: reading.persistentModelID) as? CachedReading)?.sensor == "t1")
        let noteFromReading = PersistentIdentifier(
            entityName: "Note", storeIdentifier: reading.persistentModelID.storeIdentifier!, key: .row(note.persistentModelID.rowID!))
        #expect(other.registeredModel(for: noteFromReading) as Note? == nil)
    }

    @Test func storeIdentifiersAndConfigurationNamesMapToEachOther() throws {
        let files = TwoFiles()
        let container = try files.container()
        let context = ModelContext(container)
        let note = Note(text: "kept")
        let reading = CachedReading(sensor: "t", value: 1)
        context.insert(note)
        context.insert(reading)
        try context.save()

        let notes = try #require(container.storeIdentifier(forConfigurationNamed: "Notes"))
        let cache = try #require(container.storeIdentifier(forConfigurationNamed: "Cache"))
        #expect(note.persistentModelID.storeIdentifier == notes)
        #expect(reading.persistentModelID.storeIdentifier == cache)
        #expect(container.configurationName(forStoreIdentifier: notes) == "Notes")
        #expect(container.configurationName(forStoreIdentifier: cache) == "Cache")
        let token = try #require(context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).first?.token)
        #expect(container.configurationName(forStoreIdentifier: token.storeIdentifier) != nil)
        #expect(container.storeIdentifier(forConfigurationNamed: "Elsewhere") == nil)
        #expect(container.configurationName(forStoreIdentifier: "no such store") == nil)
        #expect(try files.container().storeIdentifier(forConfigurationNamed: "Notes") == notes, "kept in the store")
    }

    @Test func anotherContextMergesWhatEachStoreCommitted() throws {
        let files = TwoFiles()
        let container = try files.container()
        let writer = ModelContext(container)
        let note = Note(text: "draft")
        let reading = CachedReading(sensor: "t1", value: 1)
        writer.insert(note)
        writer.insert(reading)
        try writer.save()

        let reader = ModelContext(container)
        let heldNote = try #require(try reader.fetch(FetchDescriptor<Note>()).first)
        let heldReading = try #require(try reader.fetch(FetchDescriptor<CachedReading>()).first)
        note.text = "final"
        reading.value = 2
        try writer.save()
        #expect(try reader.fetchCount(FetchDescriptor<Note>()) == 1)
        #expect(heldNote.text == "final")
        #expect(heldReading.value == 2)
    }

    @Test func aFailedSaveInTheSecondStoreKeepsTheFirstStoresCommitAndItsOwnChangesPending() throws {
        let files = TwoFiles()
        let container = try files.container()
        let context = ModelContext(container)
        let reading = CachedReading(sensor: "t1", value: 1)
        context.insert(reading)
        try context.save()
        try ModelContext(container).delete(model: CachedReading.self)

        let saved = Mutex<[PersistentIdentifier]>([])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
            saved.withLock { $0 += inserted }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let note = Note(text: "kept")
        context.insert(note)
        reading.value = 5
        #expect {
            try context.save()
        } throws: { error in
            guard case .saveConflict(let entity, _)? = modelKitError(error) else { return false }
            return entity == "CachedReading"
        }
        #expect(try files.count("Note", in: files.notes) == 1)
        #expect(saved.withLock { $0 } == [note.persistentModelID])
        #expect(context.insertedModelsArray.isEmpty)
        #expect(context.changedModelsArray.count == 1)
        #expect(context.hasChanges)
    }

    @Test func aTransactionWhoseChangesSpanTwoStoresThrowsAndWritesNothing() throws {
        let files = TwoFiles()
        let container = try files.container()
        let context = ModelContext(container)
        #expect {
            try context.transaction {
                context.insert(Note(text: "a"))
                context.insert(CachedReading(sensor: "t1", value: 1))
            }
        } throws: { error in
            guard case .invalidConfiguration? = modelKitError(error) else { return false }
            return true
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CachedReading>()) == 0)
    }

    @Test func aReadOnlyStoreRefusesTheSaveBeforeAnyStoreIsWritten() throws {
        let files = TwoFiles()
        _ = try files.container()
        let context = ModelContext(try files.container(cacheAllowsSave: false))
        context.insert(Note(text: "a"))
        context.insert(CachedReading(sensor: "t1", value: 1))
        #expect {
            try context.save()
        } throws: { error in
            guard case .saveNotAllowed(let url)? = modelKitError(error) else { return false }
            return url == files.cache
        }
        #expect(try files.count("Note", in: files.notes) == 0)
        context.rollback()
        context.insert(Note(text: "b"))
        try context.save()
        #expect(try files.count("Note", in: files.notes) == 1)
    }

    @Test func deleteAllDataAndBatchDeletesEmptyTheStoresThatHoldTheModels() throws {
        let files = TwoFiles()
        let container = try files.container()
        let context = ModelContext(container)
        for index in 0..<3 {
            context.insert(Note(text: "\(index)"))
            context.insert(CachedReading(sensor: "t\(index)", value: Double(index)))
        }
        try context.save()
        try context.delete(model: CachedReading.self, where: #Predicate { $0.value > 0 })
        #expect(try files.count("CachedReading", in: files.cache) == 1)
        #expect(try files.count("Note", in: files.notes) == 3)
        try container.erase()
        #expect(try files.count("CachedReading", in: files.cache) == 0)
        #expect(try files.count("Note", in: files.notes) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test func historyReadsEveryStoreByTimeAndATokenReadsItsOwnStore() throws {
        let files = TwoFiles()
        let container = try files.container()
        let context = ModelContext(container)
        context.insert(Note(text: "a"))
        try context.save()
        context.insert(CachedReading(sensor: "t1", value: 1))
        try context.save()
        context.insert(Note(text: "b"))
        try context.save()

        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.count == 3)
        #expect(all.map(\.timestamp) == all.map(\.timestamp).sorted())
        let first = try #require(all.first)
        let after = first.token
        let later = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > after }))
        #expect(later.count == 1)
        #expect(later.allSatisfy { $0.storeIdentifier == first.storeIdentifier })
    }

    @Test func anObserverHearsCommitsToEitherStoreFromOtherContainers() throws {
        let files = TwoFiles()
        let container = try files.container()
        let heard = StoreChangeFeedTests.Heard()
        let observation = container.observeStoreChanges { heard.append($0) }
        defer { observation.cancel() }

        let cacheOnly = try ModelContainer(for: CachedReading.self, configurations: ModelConfiguration(url: files.cache))
        let context = ModelContext(cacheOnly)
        context.insert(CachedReading(sensor: "t1", value: 1))
        try context.save()
        #expect(heard.wait().first?.names == ["CachedReading"])
    }

    @Test func relatedTypesFollowTheirModelIntoItsConfiguration() throws {
        let files = TwoFiles()
        let library = ModelConfiguration("Library", schema: Schema([Shelf.self]), url: files.notes)
        let cache = ModelConfiguration("Cache", schema: Schema([CachedReading.self]), url: files.cache)
        let container = try ModelContainer(for: Shelf.self, CachedReading.self, configurations: library, cache)
        let context = ModelContext(container)
        let shelf = Shelf(name: "fiction")
        context.insert(shelf)
        shelf.books.append(Book(title: "one"))
        try context.save()
        #expect(try files.tables(of: files.notes) == ["Shelf", "Book"])
        #expect(try files.count("Book", in: files.notes) == 1)
    }

    @Test func aTypeInNoConfigurationIsRefused() throws {
        let files = TwoFiles()
        let notes = ModelConfiguration("Notes", schema: Schema([Note.self]), url: files.notes)
        #expect {
            try ModelContainer(for: Note.self, CachedReading.self, configurations: notes)
        } throws: { error in
            guard let error = error as? SwiftDataError, case .invalidConfiguration? = error.underlying else { return false }
            return error == .loadIssueModelContainer && "\(error.underlying!)".contains("CachedReading")
        }
    }

    @Test func aConfigurationWithATypeTheContainerLacksIsRefused() throws {
        let files = TwoFiles()
        let notes = ModelConfiguration("Notes", schema: Schema([Note.self, CachedReading.self]), url: files.notes)
        #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) {
            try ModelContainer(for: Note.self, configurations: notes)
        }
    }

    @Test func twoConfigurationsOfOneNameOrOneFileAreRefused() throws {
        let files = TwoFiles()
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(
                for: Note.self, CachedReading.self,
                configurations: ModelConfiguration(schema: Schema([Note.self]), isStoredInMemoryOnly: true),
                ModelConfiguration(schema: Schema([CachedReading.self]), isStoredInMemoryOnly: true))
        }
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(
                for: Note.self, CachedReading.self,
                configurations: ModelConfiguration("A", schema: Schema([Note.self]), url: files.notes),
                ModelConfiguration("B", schema: Schema([CachedReading.self]), url: files.notes))
        }
    }

    @Test func inMemoryConfigurationsOfDifferentNamesAreSeparateStores() throws {
        let container = try ModelContainer(
            for: Note.self, CachedReading.self,
            configurations: ModelConfiguration("Notes", schema: Schema([Note.self]), isStoredInMemoryOnly: true),
            ModelConfiguration("Cache", schema: Schema([CachedReading.self]), isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Note(text: "a"))
        context.insert(CachedReading(sensor: "t1", value: 1))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CachedReading>()) == 1)
    }
}

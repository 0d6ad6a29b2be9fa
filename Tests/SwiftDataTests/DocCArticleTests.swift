import Foundation
import Observation
import SwiftData
import Testing

// ModelKit's DocC articles, their code verbatim: if this stops compiling or passing, an article
// is wrong.

// MARK: Observing results

@Model final class Album {
    var title: String
    var genre: String
    var isReleased: Bool
    init(title: String, genre: String, isReleased: Bool) {
        self.title = title
        self.genre = genre
        self.isReleased = isReleased
    }
}

@MainActor @Observable final class ShelfViewModel {
    private let observer: ResultsObserver<Album, Never>

    init(context: ModelContext) throws {
        observer = try ResultsObserver(
            filterBy: #Predicate { $0.isReleased },
            sortBy: [SortDescriptor(\.title)],
            modelContext: context)
    }

    var titles: [String] { observer.results.map(\.title) }
}

// MARK: History and change feeds

@Model final class Visit {
    @Attribute(.preserveValueOnDeletion) var place: String
    var nights: Int
    init(place: String, nights: Int) { self.place = place; self.nights = nights }
}

/// Prints the places deleted after `lastToken`, and returns the newest token seen.
func reportDeletions(in context: ModelContext, after lastToken: DefaultHistoryToken?) throws -> DefaultHistoryToken? {
    var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    if let lastToken {
        descriptor.predicate = #Predicate { $0.token > lastToken }
    }
    var newest = lastToken
    for transaction in try context.fetchHistory(descriptor) {
        for change in transaction.changes {
            if case .delete(let deletion as DefaultHistoryDelete<Visit>) = change {
                print("deleted", deletion.tombstone[\.place] as? String ?? "?")
            }
        }
        newest = transaction.token
    }
    return newest
}

// MARK: Several contexts and model actors

@Model final class Item {
    var title: String
    init(title: String) { self.title = title }
}

@ModelActor
actor Importer {
    func rename(_ id: PersistentIdentifier, to title: String) throws {
        guard let item = self[id, as: Item.self] else { return }
        item.title = title
        try modelContext.save()
    }
}

@MainActor
func show(_ container: ModelContainer, _ id: PersistentIdentifier) async throws -> Item {
    let item = container.mainContext.model(for: id) as! Item
    try await Importer(modelContainer: container).rename(id, to: "Renamed")
    // The main context merges the actor's save on the main actor: `item.title` becomes
    // "Renamed", and Observation tells whoever read it.
    return item
}

// MARK: Schema versions

enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }
    @Model final class Note {
        var title: String
        init(title: String) { self.title = title }
    }
}

enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }
    @Model final class Note {
        @Attribute(.unique) var title: String
        init(title: String) { self.title = title }
    }
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: NotesV1.self, toVersion: NotesV2.self,
                willMigrate: { context in
                    var seen = Set<String>()
                    for note in try context.fetch(FetchDescriptor<NotesV1.Note>()) where !seen.insert(note.title).inserted {
                        context.delete(note)
                    }
                    try context.save()
                },
                didMigrate: nil)
        ]
    }
}

@Suite struct DocCArticleTests {
    @Test func theHistoryArticlesLoopResumesFromItsToken() throws {
        let context = ModelContext(try ModelContainer(for: Visit.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let lisbon = Visit(place: "Lisbon", nights: 2)
        context.insert(lisbon)
        try context.save()
        let first = try reportDeletions(in: context, after: nil)
        #expect(first != nil)
        context.delete(lisbon)
        try context.save()
        let second = try reportDeletions(in: context, after: first)
        #expect(second.map { $0 > first! } == true)
        #expect(try reportDeletions(in: context, after: second) == second)
    }

    @Test @MainActor func theSeveralContextsArticlesActorRenamesWhatTheMainContextHolds() async throws {
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let item = Item(title: "Draft")
        container.mainContext.insert(item)
        try container.mainContext.save()
        #expect(try await show(container, item.persistentModelID) === item)
        for _ in 0..<100 where item.title != "Renamed" { try await Task.sleep(for: .milliseconds(10)) }
        #expect(item.title == "Renamed")
    }

    @Test @MainActor func theObservingResultsArticlesViewModelFollowsSavesAndItsSectionsGroup() async throws {
        let container = try ModelContainer(for: Album.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let viewModel = try ShelfViewModel(context: context)
        let writer = ModelContext(container)
        writer.insert(Album(title: "Kind of Blue", genre: "Jazz", isReleased: true))
        writer.insert(Album(title: "Abbey Road", genre: "Rock", isReleased: true))
        writer.insert(Album(title: "Demo", genre: "Rock", isReleased: false))
        try writer.save()
        for _ in 0..<500 where viewModel.titles.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(viewModel.titles == ["Abbey Road", "Kind of Blue"])

        let observer = try ResultsObserver<Album, String>(sectionBy: \.genre, modelContext: context)
        for section in observer.sections ?? SectionedResults() {
            print(section.title, section.map(\.title))
        }
        let jazz = observer.sections?[sectionTitle: "Jazz"]   // O(1)
        #expect(jazz?.map(\.title) == ["Kind of Blue"])
    }

    @Test @MainActor func theObservingHistoryArticlesObserverCountsTheAppsSaves() async throws {
        let container = try ModelContainer(for: Album.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let observer = try HistoryObserver(
            observedModels: [Album.self], authors: ["app"], modelContainer: container)
        let context = ModelContext(container)
        context.author = "app"
        context.insert(Album(title: "Blue Train", genre: "Jazz", isReleased: true))
        try context.save()
        for _ in 0..<500 where observer.eventCounter == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(observer.eventCounter == 1)

        var newest = HistoryDescriptor<DefaultHistoryTransaction>()
        newest.sortBy = [SortDescriptor(\.token, order: .reverse)]
        newest.fetchLimit = 1
        let token = try context.fetchHistory(newest).first?.token
        #expect(token != nil)
    }

    /// The store was made by the app's first release, without a plan: its version is found from
    /// the schema it was migrated to, which differs from the next only by a unique constraint.
    @Test func theSchemaVersionsArticlesPlanRemovesDuplicatesBeforeTheUniqueConstraint() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("DocCArticleTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("notes.store")
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [ModelConfiguration(url: url)]))
            for title in ["a", "a", "b"] { context.insert(NotesV1.Note(title: title)) }
            try context.save()
        }
        let container = try ModelContainer(for: NotesV2.Note.self, migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<NotesV2.Note>()).map(\.title).sorted() == ["a", "b"])
    }
}

import Foundation
import Synchronization
import ModelKit
import Observation
import TestSupport
import Testing

/// `ResultsObserver` (iOS 27): results that follow saves without fetching again, from the same
/// context, other contexts, other processes and other PostgreSQL instances; sections; and quiet
/// on saves that cannot change them.
@MainActor @Suite struct ResultsObserverTests {
    @Test(arguments: StoreKind.withPostgres)
    func resultsFollowSavesOfTheirOwnContext(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Novel.self))
        let observer = try ResultsObserver<Novel, Never>(
            filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], modelContext: context)
        #expect(observer.results.isEmpty)
        let changes = ChangeCounter { _ = observer.results }

        context.insert(Novel("Emma"))
        context.insert(Novel("Dracula"))
        context.insert(Novel("Draft", isPublished: false))
        try context.save()
        #expect(await changes.wait())
        #expect(observer.results.map(\.title) == ["Dracula", "Emma"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func resultsFollowInsertsUpdatesAndDeletesOfAnotherContext(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Novel.self)
        let observer = try ResultsObserver<Novel, Never>(
            filterBy: #Predicate { $0.isPublished }, sortBy: [SortDescriptor(\.title)], modelContainer: container)
        let changes = ChangeCounter { _ = observer.results }
        let writer = ModelContext(container)
        let emma = Novel("Emma")
        let persuasion = Novel("Persuasion")
        writer.insert(emma)
        writer.insert(persuasion)
        try writer.save()
        #expect(await changes.wait(for: 1))
        #expect(observer.results.map(\.title) == ["Emma", "Persuasion"])

        emma.title = "Sense and Sensibility"  // moves behind Persuasion
        try writer.save()
        #expect(await changes.wait(for: 2))
        #expect(observer.results.map(\.title) == ["Persuasion", "Sense and Sensibility"])

        persuasion.isPublished = false  // leaves the predicate
        try writer.save()
        #expect(await changes.wait(for: 3))
        #expect(observer.results.map(\.title) == ["Sense and Sensibility"])

        writer.delete(emma)
        try writer.save()
        #expect(await changes.wait(for: 4))
        #expect(observer.results.isEmpty)
        #expect(observer.modelContext !== writer)
    }

    @Test(arguments: StoreKind.withPostgres)
    func unsortedResultsSpliceSavedRowsInKeyOrderAsAFetchWould(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Novel.self)
        let writer = ModelContext(container)
        for title in ["a", "b", "c", "d"] { writer.insert(Novel(title, isPublished: title != "b")) }
        try writer.save()
        let context = ModelContext(container)
        let observer = try ResultsObserver<Novel, Never>(filterBy: #Predicate { $0.isPublished }, modelContext: context)
        let changes = ChangeCounter { _ = observer.results }
        #expect(observer.results.map(\.title) == ["a", "c", "d"])

        let all = try writer.fetch(FetchDescriptor<Novel>(sortBy: [SortDescriptor(\.title)]))
        all[1].isPublished = true  // b joins, between a and c
        all[2].isPublished = false  // c leaves
        writer.insert(Novel("e"))
        try writer.save()
        #expect(await changes.wait())
        #expect(observer.results.map(\.title) == ["a", "b", "d", "e"])
        #expect(observer.results.map(\.title) == (try context.fetch(FetchDescriptor(predicate: #Predicate<Novel> { $0.isPublished }))).map(\.title))
    }

    @Test(arguments: StoreKind.withPostgres)
    func savesOfOtherModelTypesAndOfRowsOutsideTheResultsDoNotReportAChange(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Novel.self, TodoItem.self)
        let writer = ModelContext(container)
        let observer = try ResultsObserver<Novel, Never>(filterBy: #Predicate { $0.isPublished }, modelContainer: container)
        let changes = ChangeCounter { _ = observer.results }

        writer.insert(TodoItem(title: "unrelated type"))
        try writer.save()
        #expect(await changes.staysQuiet())

        let draft = Novel("Draft", isPublished: false)
        writer.insert(draft)
        try writer.save()
        draft.title = "Second draft"
        try writer.save()
        #expect(await changes.staysQuiet(), "rows the predicate leaves out are not results")

        draft.isPublished = true
        try writer.save()
        #expect(await changes.wait())
        #expect(observer.results.map(\.title) == ["Second draft"])
    }

    @Test func aSaveByAnotherProcessReachesTheObserver() async throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Entry.self)
        let observer = try ResultsObserver<Entry, Never>(sortBy: [SortDescriptor(\.number)], modelContainer: container)
        let changes = ChangeCounter { _ = observer.results }

        let process = try runCrashWriter(at: store.url, saves: 1)
        #expect(process.waitUntilExit() == .exit(0))
        #expect(await changes.wait())
        #expect(observer.results.count == 20)
    }

    @Test(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
    func aSaveByAnotherPostgresInstanceReachesTheObserver() async throws {
        let database = PostgresTestDatabase()
        let here = try database.container(for: Novel.self, instance: 1)
        let there = try database.container(for: Novel.self, instance: 2)
        let observer = try ResultsObserver<Novel, Never>(sortBy: [SortDescriptor(\.title)], modelContainer: here)
        let changes = ChangeCounter { _ = observer.results }

        let writer = ModelContext(there)
        writer.insert(Novel("Middlemarch"))
        try writer.save()
        #expect(await changes.wait())
        #expect(observer.results.map(\.title) == ["Middlemarch"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func sectionsGroupResultsInTheOrderTheirTitlesFirstAppear(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Novel.self))
        for (title, genre) in [("Dune", "sf"), ("Emma", "romance"), ("Alien", "sf"), ("Persuasion", "romance"), ("It", "horror")] {
            context.insert(Novel(title, genre: genre))
        }
        try context.save()

        let observer = try ResultsObserver<Novel, String>(sortBy: [SortDescriptor(\.title)], sectionBy: \.genre, modelContext: context)
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["horror", "romance", "sf"])
        #expect(sections.map { $0.map(\.title) } == [["It"], ["Emma", "Persuasion"], ["Alien", "Dune"]])
        #expect(sections[sectionTitle: "sf"]?.map(\.title) == ["Alien", "Dune"])
        #expect(sections[sectionTitle: "western"] == nil)
        #expect(sections.index(ofSectionTitled: "romance") == 1)
        #expect(sections[0].id == "horror")
        #expect(observer.sectionBy == \Novel.genre)
        #expect(observer.sortBy.count == 2, "the section key path sorts first")

        let changes = ChangeCounter { _ = observer.sections }
        context.insert(Novel("Carrie", genre: "horror"))
        try context.save()
        #expect(await changes.wait())
        #expect(observer.sections?[sectionTitle: "horror"]?.map(\.title) == ["Carrie", "It"])

        // A new title that keeps the row in place: the same results, in another section.
        let it = try #require(observer.results.first { $0.title == "It" })
        it.genre = "horrors"
        try context.save()
        #expect(await changes.wait(for: 2))
        #expect(observer.sections?.sectionTitles == ["horror", "horrors", "romance", "sf"])
        #expect(observer.sections?[sectionTitle: "horrors"]?.map(\.title) == ["It"])
    }

    @Test func resultsWithANilSectionValueAreInTheSectionTitledEmpty() throws {
        let context = ModelContext(try inMemoryContainer(for: Novel.self))
        context.insert(Novel("Emma"))
        context.insert(Novel("Dune", series: "Dune"))
        context.insert(Novel("Persuasion"))
        try context.save()

        let observer = try ResultsObserver<Novel, String>(
            filterBy: nil, sortBy: [SortDescriptor(\.title)], sectionBy: \.series, modelContext: context)
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["", "Dune"])
        #expect(sections[sectionTitle: ""]?.map(\.title) == ["Emma", "Persuasion"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func pagedResultsFollowSavesThatMoveRowsIntoAndOutOfThePage(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Novel.self)
        let writer = ModelContext(container)
        for title in ["b", "d", "f"] { writer.insert(Novel(title)) }
        try writer.save()
        var firstTwo = FetchDescriptor<Novel>(sortBy: [SortDescriptor(\.title)])
        firstTwo.fetchLimit = 2
        let observer = try ResultsObserver<Novel, Never>(fetchDescriptor: firstTwo, modelContainer: container)
        let changes = ChangeCounter { _ = observer.results }
        #expect(observer.results.map(\.title) == ["b", "d"])

        writer.insert(Novel("a"))
        try writer.save()
        #expect(await changes.wait())
        #expect(observer.results.map(\.title) == ["a", "b"])
    }

    @Test func aReleasedObserverStopsListening() throws {
        let container = try inMemoryContainer(for: Novel.self)
        weak var released: ResultsObserver<Novel, Never>?
        do {
            let observer = try ResultsObserver<Novel, Never>(modelContainer: container)
            released = observer
        }
        #expect(released == nil, "no cycle keeps an observer alive")
        let writer = ModelContext(container)
        writer.insert(Novel("after"))
        try writer.save()  // reaches no observer
    }

    @Test func flatResultsHaveNoSections() throws {
        let context = ModelContext(try inMemoryContainer(for: Novel.self))
        let observer = try ResultsObserver<Novel, Never>(modelContext: context)
        #expect(observer.sections == nil)
        #expect(observer.sectionBy == nil)
    }

    @Test func settingFilterByOrSortByFetchesAgainAndReportsTheChange() async throws {
        let context = ModelContext(try inMemoryContainer(for: Novel.self))
        for title in ["b", "a", "c"] { context.insert(Novel(title, isPublished: title != "c")) }
        try context.save()
        let observer = try ResultsObserver<Novel, Never>(fetchDescriptor: FetchDescriptor(), modelContext: context)
        let changes = ChangeCounter { _ = observer.results }

        observer.sortBy = [SortDescriptor(\.title, order: .reverse)]
        #expect(observer.results.map(\.title) == ["c", "b", "a"])
        #expect(await changes.wait(for: 1))
        observer.filterBy = #Predicate { $0.isPublished }
        #expect(observer.results.map(\.title) == ["b", "a"])
        #expect(observer.fetchDescriptor.predicate != nil)
        #expect(await changes.wait(for: 2))

        // Results set by hand hold until the next save, which fetches by the descriptor again.
        observer.results = try context.fetch(FetchDescriptor<Novel>(sortBy: [SortDescriptor(\.title)]), batchSize: 10)
        #expect(observer.results.map(\.title) == ["a", "b", "c"])
        context.insert(Novel("d"))
        try context.save()
        #expect(await changes.wait(for: 4))
        #expect(observer.results.map(\.title) == ["d", "b", "a"])
    }

}

/// An observer made in a model actor fetches on that actor; the test waits off the main actor.
@Suite struct ResultsObserverInModelActorTests {
    @Test func anObserverMadeInAModelActorFetchesThereAfterSaves() async throws {
        let container = try inMemoryContainer(for: Novel.self)
        let shelf = NovelShelf(modelContainer: container)
        try await shelf.startObserving()
        let writer = ModelContext(container)
        writer.insert(Novel("Emma"))
        try writer.save()
        let deadline = Date().addingTimeInterval(60)
        var titles: [String] = []
        while titles != ["Emma"], Date() < deadline {
            titles = await shelf.titles()
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(titles == ["Emma"])
    }
}

/// Random saves, each followed by a read of an observer made outside any actor (which applies
/// the save on that read): its results are always what a fetch of its descriptor returns, in
/// every order, whether it splices the saved rows in or reads the keys again.
@Suite struct ResultsObserverAgreementTests {
    /// Sort orders the observer reproduces in memory (SQLite) and ones it reads again, with ties.
    nonisolated static let orders: [(String, [SortDescriptor<Novel>])] = [
        ("key order", []),
        ("title", [SortDescriptor(\.title)]),
        ("genre, then title descending", [SortDescriptor(\.genre), SortDescriptor(\.title, order: .reverse)]),
        ("rating descending, ties by key", [SortDescriptor(\.rating, order: .reverse)]),
    ]

    @Test(arguments: StoreKind.withPostgres, orders.indices)
    func theObserverAgreesWithAFetchOfItsDescriptorAfterEachOfManySaves(_ kind: StoreKind, order: Int) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Novel.self)
        let writer = ModelContext(container)
        let observer = try ResultsObserver<Novel, Never>(
            filterBy: #Predicate { $0.title.contains("a") }, sortBy: Self.orders[order].1, modelContainer: container)
        var generator = SystemRandomNumberGenerator()
        var novels: [Novel] = []
        for round in 0..<40 {
            switch novels.isEmpty ? 0 : Int.random(in: 0..<4, using: &generator) {
            case 0:
                let novel = Novel(
                    "t\(round % 7)\(["a", "b"].randomElement(using: &generator)!)", genre: ["x", "y"].randomElement(using: &generator)!,
                    isPublished: Bool.random(using: &generator))
                writer.insert(novel)
                novels.append(novel)
            case 1:
                novels.randomElement(using: &generator)!.title += ["a", "b"].randomElement(using: &generator)!
            case 2:
                novels.randomElement(using: &generator)!.rating = Int.random(in: 0..<3, using: &generator)
            default:
                writer.delete(novels.remove(at: Int.random(in: 0..<novels.count, using: &generator)))
            }
            try writer.save()
            let expected = try writer.fetch(observer.fetchDescriptor).map(\.persistentModelID)
            #expect(observer.results.map(\.persistentModelID) == expected, "round \(round), \(Self.orders[order].0)")
        }
    }
}

/// A model actor holding an observer of its own context, as a service would.
@ModelActor
actor NovelShelf {
    private var observer: ResultsObserver<Novel, Never>?

    func startObserving() throws {
        observer = try ResultsObserver(sortBy: [SortDescriptor(\.title)], modelContext: modelContext)
    }

    /// Reads the results without fetching: what the observer fetched after the last save.
    func titles() -> [String] {
        observer?.results.map(\.title) ?? []
    }
}

/// An observer made outside any actor cannot fetch on its own: it reports a relevant save at
/// once, and fetches when its results are read.
@Suite struct ResultsObserverWithoutActorTests {
    @Test func aSaveIsReportedAtOnceAndFetchedOnTheNextRead() throws {
        let container = try inMemoryContainer(for: Novel.self, TodoItem.self)
        let context = ModelContext(container)
        let observer = try makeObserver(context)
        let reported = ReportFlag()
        withObservationTracking { _ = observer.results } onChange: { reported.set() }

        let writer = ModelContext(container)
        writer.insert(TodoItem(title: "unrelated"))
        try writer.save()
        #expect(!reported.isSet)
        writer.insert(Novel("Emma"))
        try writer.save()
        #expect(reported.isSet, "reported on the saving thread, before the save returns")
        #expect(observer.results.map(\.title) == ["Emma"])
    }

    private nonisolated func makeObserver(_ context: ModelContext) throws -> ResultsObserver<Novel, Never> {
        try ResultsObserver(modelContext: context)
    }
}

final class ReportFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}

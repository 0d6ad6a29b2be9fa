import AppState
import Foundation
import Observation
import SwiftData
import TestSupport
import Testing

@Model
final class Item {
    var title: String
    var rank: Int

    init(title: String, rank: Int = 0) {
        self.title = title
        self.rank = rank
    }
}

/// The model `modelkit-crash-writer` saves, as this process reads it.
@Model
final class Entry {
    var number: Int
    var payload: String
    init(number: Int, payload: String) {
        self.number = number
        self.payload = payload
    }
}

@Model
final class Tag {
    var name: String
    init(name: String) { self.name = name }
}

/// A team can't be deleted while it has members.
@Model
final class Team {
    var name: String
    @Relationship(deleteRule: .deny) var members: [Member] = []
    init(name: String) { self.name = name }
}

@Model
final class Member {
    var name: String
    var team: Team?
    init(name: String) { self.name = name }
}

extension Application {
    var teams: ModelState<Team> { modelState(container: \.modelContainer, id: "teams") }
    var modelContainer: Dependency<ModelContainer> {
        modelContainer(try! ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
    }
    var items: ModelState<Item> {
        modelState(container: \.modelContainer, fetchDescriptor: FetchDescriptor<Item>(sortBy: [SortDescriptor(\.title)]), id: "items")
    }
    var allItems: ModelState<Item> { modelState(container: \.modelContainer) }
    var featureItems: ModelState<Item> { modelState(container: \.modelContainer, feature: "Lists", id: "items") }
    var topTwoAfterFirst: ModelState<Item> {
        modelState(container: \.modelContainer, fetchDescriptor: {
            var descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank)])
            descriptor.fetchOffset = 1
            descriptor.fetchLimit = 2
            return descriptor
        }())
    }
    var tags: ModelState<Tag> { modelState(container: \.modelContainer, id: "tags") }
    var entries: ModelState<Entry> { modelState(container: \.modelContainer, id: "entries") }
}

@MainActor
final class ItemsViewModel {
    @ModelState(\.items) var items
    @ModelState(\.tags) var tags: [Tag]
}

/// Counts how often an observation fired, from any thread.
final class FireCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func fire() { lock.withLock { count += 1 } }
}

@MainActor
@Suite struct ModelStateTests {
    /// Runs `body` in an isolated application whose container is a fresh in-memory store and whose
    /// logger is captured.
    func withModelState(
        container: ModelContainer? = nil, _ body: (ModelContainer, CapturedLog) throws -> Void
    ) throws {
        let log = CapturedLog()
        let container = try container ?? ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try Application.withIsolatedScope {
            let tokens = [
                Application.override(\.modelContainer, with: container),
                Application.override(\.logger, with: log.logger),
            ]
            defer { withExtendedLifetime(tokens) {} }
            try body(container, log)
        }
    }

    @Test func guideSnippetsWorkThroughApplicationModelState() throws {
        try withModelState { _, log in
            let state = Application.modelState(\.items)
            state.insert(Item(title: "Old"))
            let current = state.models
            state.insert(Item(title: "New"))
            state.delete(current.first!)
            state.save()
            #expect(state.models.map(\.title) == ["New"])
            #expect(log.entries.isEmpty)
        }
    }

    @Test func wrapperGivesLiveModelsAndItsProjectionMutates() throws {
        try withModelState { container, _ in
            let viewModel = ItemsViewModel()
            viewModel.$items.insert(Item(title: "b"))
            viewModel.$items.insert(Item(title: "a"))
            #expect(viewModel.items.map(\.title) == ["a", "b"])
            // Written elsewhere, seen on the next read: nothing is cached.
            let other = ModelContext(container)
            other.insert(Item(title: "c"))
            try other.save()
            #expect(viewModel.items.map(\.title) == ["a", "b", "c"])
            viewModel.items[0].title = "z"
            viewModel.$items.save()
            #expect(try ModelContext(container).fetch(FetchDescriptor<Item>()).map(\.title).sorted() == ["b", "c", "z"])
        }
    }

    @Test func everyDefinerVariantReadsTheSameStore() throws {
        try withModelState { _, _ in
            Application.modelState(\.items).insert(Item(title: "a"))
            #expect(Application.modelState(\.allItems).models.count == 1)
            #expect(Application.modelState(\.featureItems).models.count == 1)
            #expect(Application.modelState(\.featureItems).scope.key == "Lists/items")
            #expect(Application.modelState(\.allItems).scope.key != Application.modelState(\.topTwoAfterFirst).scope.key)
        }
    }

    @Test func mutatorsSaveThroughTheMainContext() throws {
        try withModelState { container, _ throws in
            let state = Application.modelState(\.items)
            #expect(state.context === container.mainContext)
            #expect(Application.modelContext(\.modelContainer) === container.mainContext)
            state.insert(Item(title: "a"))
            #expect(!state.context.hasChanges)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 1)
        }
    }

    @Test func modelsPersistAcrossANewContainerOnTheSameFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("items.store")
        try withModelState(container: ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(url: url))) { _, _ in
            Application.modelState(\.items).insert(Item(title: "kept"))
        }
        try withModelState(container: ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(url: url))) { _, _ in
            #expect(Application.modelState(\.items).models.map(\.title) == ["kept"])
        }
    }

    @Test func strictThrowsWhereTheLenientTwinLogsWithTheCallersLocation() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("items.store")
        let seeding = ModelContext(try ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(url: url)))
        seeding.insert(Item(title: "stored"))
        try seeding.save()
        let readOnly = try ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        try withModelState(container: readOnly) { _, log throws in
            let state = Application.modelState(\.items)
            #expect(throws: ModelKitError.self) { try state.strict.insert(Item(title: "a")) }
            #expect(throws: ModelKitError.self) { try state.strict.save() }
            #expect(throws: ModelKitError.self) { try state.strict.deleteAll() }
            #expect(log.entries.isEmpty)
            state.context.rollback()

            state.insert(Item(title: "b")); let line = #line
            let errors = log.entries.filter { $0.level == .error }
            #expect(errors.count == 1)
            #expect(errors.first?.fileID == "AppStateTests/ModelStateTests.swift")
            #expect(errors.first?.line == line)
            #expect(errors.first?.message.contains("ModelState App/items insert failed") == true)
            #expect(errors.first?.message.contains("allowsSave: false") == true)
            #expect(!state.context.hasChanges, "the failed insert is undone")
            state.delete(state.models.first { $0.title == "stored" }!)
            state.deleteAll()
            #expect(log.entries.filter { $0.level == .error }.count == 3)
            #expect(!state.context.hasChanges)
            #expect(state.models.map(\.title) == ["stored"])
            #expect(try ModelContext(readOnly).fetch(FetchDescriptor<Item>()).map(\.title) == ["stored"])
        }
    }

    @Test func aLenientMutationWhoseSaveFailsIsUndoneAndTheNextOneWorks() throws {
        let container = try ModelContainer(
            for: Item.self, Tag.self, Team.self, Member.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try withModelState(container: container) { container, log throws in
            let teams = Application.modelState(\.teams)
            let team = Team(name: "core")
            teams.insert(team)
            team.members.append(Member(name: "Ada"))
            teams.save()

            teams.delete(team)  // denied: the team has a member
            #expect(log.entries.filter { $0.level == .error }.count == 1)
            #expect(!team.isDeleted)
            #expect(!teams.context.hasChanges)
            #expect(teams.models.map(\.name) == ["core"])

            teams.insert(Team(name: "next"))
            #expect(log.entries.filter { $0.level == .error }.count == 1)
            #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Team>()).map(\.name)) == ["core", "next"])

            // The strict twin throws and leaves the delete pending, as the context's own methods do.
            #expect(throws: ModelKitError.self) { try teams.strict.delete(team) }
            #expect(teams.context.hasChanges)
            teams.context.rollback()
        }
    }

    @Test func deleteAllDeletesExactlyWhatModelsReturns() throws {
        try withModelState { container, _ in
            let state = Application.modelState(\.topTwoAfterFirst)
            for rank in 1...5 { state.insert(Item(title: "r\(rank)", rank: rank)) }
            #expect(state.models.map(\.rank) == [2, 3])
            state.deleteAll()
            let left = try ModelContext(container).fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.rank)]))
            #expect(left.map(\.rank) == [1, 4, 5])
        }
    }

    @Test func readingModelsIsTrackedAndAnySaveOfThatTypeFiresTheChange() async throws {
        try withModelState { container, _ in
            let viewModel = ItemsViewModel()
            let itemsChanged = FireCount()
            let tagsChanged = FireCount()
            withObservationTracking { _ = viewModel.items } onChange: { itemsChanged.fire() }
            withObservationTracking { _ = Application.modelState(\.tags).models } onChange: { tagsChanged.fire() }

            Application.modelState(\.tags).insert(Tag(name: "home"))
            #expect(tagsChanged.value == 1)
            #expect(itemsChanged.value == 0)

            // A save through another context of the same container counts too.
            let background = ModelContext(container)
            background.insert(Item(title: "from elsewhere"))
            try background.save()
            #expect(itemsChanged.value == 1)
        }
    }

    #if !canImport(Darwin)
    /// On ModelKit, a read keeps the store watched until the next change, so another process's
    /// save fires the observer without anyone reading.
    @Test func aSaveByAnotherProcessFiresTheObserverWithinOneSecond() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelStateTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("entries.store")
        let container = try ModelContainer(for: Entry.self, configurations: ModelConfiguration(url: url))
        try withModelState(container: container) { _, _ in
            let fired = FireCount()
            withObservationTracking { _ = Application.modelState(\.entries).models } onChange: { fired.fire() }

            let writer = try ChildProcess(ChildProcess.product("modelkit-crash-writer"), arguments: [url.path, "1"], standardOutput: .discard)
            let ended = writer.waitUntilExit()
            let exited = Date()
            #expect(ended == .exit(0))
            while fired.value == 0, Date().timeIntervalSince(exited) < 5 { usleep(10_000) }
            #expect(fired.value == 1)
            #expect(Date().timeIntervalSince(exited) < 1, "fired within a second of the other process's commit")
            #expect(Application.modelState(\.entries).models.count == 20)
        }
    }
    #endif

    @Test func savesOfAnotherContainerDoNotFire() throws {
        try withModelState { _, _ in
            let fired = FireCount()
            withObservationTracking { _ = Application.modelState(\.items).models } onChange: { fired.fire() }
            let unrelated = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let context = ModelContext(unrelated)
            context.insert(Item(title: "x"))
            try context.save()
            #expect(fired.value == 0)
        }
    }
}

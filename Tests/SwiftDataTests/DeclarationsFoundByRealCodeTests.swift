import Foundation
import SwiftData
import Synchronization
import Testing

// The declarations that real SwiftData code bases used and ModelKit lacked, written as that code
// writes them, under `import SwiftData` alone.

/// `@Observable` with `import SwiftData` alone, as four code bases write view models.
@Observable
final class TripListModel {
    var filter = ""
}

enum TripSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    // A `static let` of metatypes is an error in Swift 6 unless the protocols refine SendableMetatype.
    static let models: [any PersistentModel.Type] = [TripV1.self]
    @Model final class TripV1 {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum TripSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static let models: [any PersistentModel.Type] = [TripV2.self]
    @Model final class TripV2 {
        var name: String
        var days = 1
        init(name: String) { self.name = name }
    }
}

enum TripMigrationPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [TripSchemaV1.self, TripSchemaV2.self]
    static let stages: [MigrationStage] = [.lightweight(fromVersion: TripSchemaV1.self, toVersion: TripSchemaV2.self)]
}

@Model final class Destination {
    var name: String
    var country: String
    init(name: String, country: String) {
        self.name = name
        self.country = country
    }
}

@Suite struct DeclarationsFoundByRealCodeTests {
    @Test func observableComesWithSwiftData() {
        let model = TripListModel()
        let changed = Mutex(false)
        withObservationTracking { _ = model.filter } onChange: { changed.withLock { $0 = true } }
        model.filter = "Paris"
        #expect(changed.withLock { $0 })
    }

    @Test func containerKeepsItsMigrationPlanAndComparesByIdentity() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let planned = try ModelContainer(
            for: Schema(versionedSchema: TripSchemaV2.self), migrationPlan: TripMigrationPlan.self,
            configurations: ModelConfiguration(url: url))
        #expect(planned.migrationPlan == TripMigrationPlan.self)
        let plain = try ModelContainer(for: Destination.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(plain.migrationPlan == nil)
        #expect(plain == plain && plain != planned)
        let stages: [MigrationStage] = TripMigrationPlan.stages
        Task.detached { _ = stages.count }  // MigrationStage is Sendable
    }

    @Test func configurationReadsBackWhatItWasGiven() throws {
        let configuration = ModelConfiguration(
            "Trips", schema: nil, isStoredInMemoryOnly: false, allowsSave: true,
            groupContainer: .identifier("group.com.example.trips"), cloudKitDatabase: .private("iCloud.com.example.trips"))
        #expect(configuration.groupContainer == .identifier("group.com.example.trips"))
        #expect(configuration.groupAppContainerIdentifier == "group.com.example.trips")
        #expect(configuration.cloudKitDatabase == .private("iCloud.com.example.trips"))
        #expect(configuration.cloudKitContainerIdentifier == "iCloud.com.example.trips")
        let id: URL = configuration.id
        #expect(id == configuration.url)
        #expect(configuration.debugDescription.contains("Trips"))
        try configuration.validate()

        let plain = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(plain.cloudKitDatabase == .automatic && plain.cloudKitContainerIdentifier == nil)
        #expect(plain.groupContainer == .automatic && plain.groupAppContainerIdentifier == nil)
        let none = ModelConfiguration(url: URL(fileURLWithPath: "/tmp/x.store"), cloudKitDatabase: .none)
        #expect(none.cloudKitDatabase == .none && none.cloudKitContainerIdentifier == nil)
        #expect(throws: (any Error).self) { try ModelConfiguration("../escape").validate() }
    }

    @Test func swiftDataErrorsMatchInCatchPatterns() {
        var caught = false
        do {
            _ = try ModelContainer(for: Destination.self, configurations: ModelConfiguration("../outside"))
        } catch SwiftDataError.configurationFileNameContainsInvalidCharacters {
            caught = true
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(caught)
        #expect(!(SwiftDataError.missingModelContext ~= SwiftDataError.loadIssueModelContainer))
        #expect(SwiftDataError.missingModelContext ~= SwiftDataError.missingModelContext)
    }

    @Test func didSaveCarriesTheSavesHistoryToken() throws {
        let container = try ModelContainer(for: Destination.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        nonisolated(unsafe) var posted: DefaultHistoryToken?
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            posted = note.userInfo?[ModelContext.NotificationKey.historyTokens.rawValue] as? DefaultHistoryToken
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        context.insert(Destination(name: "Paris", country: "France"))
        try context.save()
        let newest = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token
        #expect(posted != nil && posted == newest)
        _ = [ModelContext.NotificationKey.invalidatedAllIdentifiers, .queryGeneration]
    }

    @Test func identifiersAreMadeFromTheirPartsAndSchemasNameEntities() throws {
        let container = try ModelContainer(for: Destination.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let paris = Destination(name: "Paris", country: "France")
        context.insert(paris)
        try context.save()
        let saved = paris.persistentModelID
        let made = try PersistentIdentifier.identifier(
            for: saved.storeIdentifier!, entityName: Schema.entityName(for: Destination.self), primaryKey: Int64(saved.description.dropFirst("Destination/p".count))!)
        #expect(made == saved)
        #expect(made.id == saved.id)
        #expect((context.model(for: made) as? Destination)?.name == "Paris")
        #expect(container.schema.entity(for: Destination.self)?.name == "Destination")
        // A key that is no row's names no model here, as a custom store's key of another store would.
        let foreign = try PersistentIdentifier.identifier(for: "s", entityName: "Destination", primaryKey: "not a key")
        #expect(foreign.description == "Destination/not a key" && foreign != made)
        #expect(throws: (any Error).self) { try PersistentIdentifier.identifier(for: "s", entityName: "Destination", primaryKey: UInt64.max) }
    }

    @Test @MainActor func observersAnswerIndexPathsAndSectionsCompare() throws {
        let container = try ModelContainer(for: Destination.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        for (name, country) in [("Lyon", "France"), ("Paris", "France"), ("Rome", "Italy")] {
            context.insert(Destination(name: name, country: country))
        }
        try context.save()
        let observer = try ResultsObserver<Destination, String>(
            sortBy: [SortDescriptor(\.name)], sectionBy: \.country, modelContext: context)
        let rome = try #require(observer.element(at: IndexPath(indexes: [1, 0])))
        #expect(rome.name == "Rome")
        #expect(observer.indexPath(for: rome) == IndexPath(indexes: [1, 0]))
        #expect(observer.element(at: IndexPath(indexes: [1, 5])) == nil)
        let sections = try #require(observer.sections)
        #expect(sections.contains(sectionTitle: "Italy") && !sections.contains(sectionTitle: "Spain"))
        #expect(sections == observer.sections && sections[0] == sections[0] && sections[0] != sections[1])

        let flat = try ResultsObserver<Destination, Never>(modelContext: context)
        #expect(flat.element(at: IndexPath(indexes: [0, 0])) == nil && flat.indexPath(for: rome) == nil)

        let history = try HistoryObserver(authors: ["sync"], modelContainer: container)
        #expect(history.authors == ["sync"])
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        #expect(descriptor.fetchLimit == .max)
        descriptor.fetchLimit = 0
        #expect(try context.fetchHistory(descriptor).isEmpty)
        descriptor.fetchLimit = 1
        #expect(try context.fetchHistory(descriptor).count == 1)
    }
}

import Foundation
import ModelKit
import Synchronization
import Testing

enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        var body: String
        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }
}

/// Titles become unique (duplicates removed in `willMigrate`); `words` is new, filled in `didMigrate`.
enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        @Attribute(.unique) var title: String
        var body: String
        var words: Int = 0
        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }
}

/// `body` is renamed `text`: a lightweight stage.
enum NotesV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        @Attribute(.unique) var title: String
        @Attribute(originalName: "body") var text: String
        var words: Int = 0
        init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }
}

/// How often each custom step ran.
final class StageRuns: Sendable {
    let willMigrate = Atomic<Int>(0)
    let didMigrate = Atomic<Int>(0)
}

let notesStageRuns = StageRuns()

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: NotesV1.self, toVersion: NotesV2.self,
                willMigrate: { context in
                    notesStageRuns.willMigrate.add(1, ordering: .relaxed)
                    var seen = Set<String>()
                    for note in try context.fetch(FetchDescriptor<NotesV1.Note>(sortBy: [SortDescriptor(\.body)]))
                    where !seen.insert(note.title).inserted {
                        context.delete(note)
                    }
                    try context.save()
                },
                didMigrate: { context in
                    notesStageRuns.didMigrate.add(1, ordering: .relaxed)
                    for note in try context.fetch(FetchDescriptor<NotesV2.Note>()) {
                        note.words = note.body.split(separator: " ").count
                    }
                    try context.save()
                }),
            .lightweight(fromVersion: NotesV2.self, toVersion: NotesV3.self),
        ]
    }
}

struct StageFailure: Error {}

/// The same versions, with a second stage that fails after the first has run.
enum FailingNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { NotesPlan.schemas }
    static var stages: [MigrationStage] {
        [
            NotesPlan.stages[0],
            .custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: nil, didMigrate: { _ in throw StageFailure() }),
        ]
    }
}

/// A downgrade as an open-source code base tests one: the same versions, with a stage from the
/// latest back to the first.
enum DowngradingNotesPlan: SchemaMigrationPlan {
    static let runs = StageRuns()
    static var schemas: [any VersionedSchema.Type] { NotesPlan.schemas }
    static var stages: [MigrationStage] {
        NotesPlan.stages + [
            .custom(
                fromVersion: NotesV3.self, toVersion: NotesV1.self,
                willMigrate: { _ in runs.willMigrate.add(1, ordering: .relaxed) },
                didMigrate: { _ in runs.didMigrate.add(1, ordering: .relaxed) })
        ]
    }
}

/// Versioned schemas and migration plans, as in SwiftData, on on-disk stores.
@Suite(.serialized) struct MigrationPlanTests {
    func v1Store() throws -> TemporaryStore {
        let store = try TemporaryStore()
        let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: store.url)))
        context.insert(NotesV1.Note(title: "Groceries", body: "milk eggs bread"))
        context.insert(NotesV1.Note(title: "Groceries", body: "zz a duplicate"))
        context.insert(NotesV1.Note(title: "Ideas", body: "a migration plan"))
        try context.save()
        return store
    }

    func migrated(_ store: TemporaryStore, plan: any SchemaMigrationPlan.Type = NotesPlan.self) throws -> ModelContainer {
        try ModelContainer(for: NotesV3.Note.self, migrationPlan: plan, configurations: ModelConfiguration(url: store.url))
    }

    @Test func aV1StoreMigratesThroughCustomAndLightweightStages() throws {
        let store = try v1Store()
        let notes = try ModelContext(try migrated(store)).fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["Groceries", "Ideas"])
        #expect(notes.map(\.text) == ["milk eggs bread", "a migration plan"])
        #expect(notes.map(\.words) == [3, 3])
        #expect(try store.sql("SELECT value FROM _modelkit_store WHERE key = 'version'") == [["3.0.0"]])
        let context = ModelContext(try migrated(store))
        context.insert(NotesV3.Note(title: "Ideas", text: "an upsert"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<NotesV3.Note>()) == 2, "the new unique constraint holds")
    }

    @Test func reopeningAMigratedStoreRunsNoStage() throws {
        let store = try v1Store()
        _ = try migrated(store)
        let runs = (notesStageRuns.willMigrate.load(ordering: .relaxed), notesStageRuns.didMigrate.load(ordering: .relaxed))
        _ = try migrated(store)
        #expect(notesStageRuns.willMigrate.load(ordering: .relaxed) == runs.0)
        #expect(notesStageRuns.didMigrate.load(ordering: .relaxed) == runs.1)
    }

    @Test func aFailingStageLeavesTheStoreReadableByV1() throws {
        let store = try v1Store()
        #expect {
            try migrated(store, plan: FailingNotesPlan.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.migrationFailed(let stage, let underlying) = error else { return false }
            return stage == "2.0.0 → 3.0.0" && underlying is StageFailure
        }
        let v1 = try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: store.url))
        #expect(try ModelContext(v1).fetch(FetchDescriptor<NotesV1.Note>()).count == 3)
        #expect(try store.sql("SELECT value FROM _modelkit_store WHERE key = 'version'") == [])
    }

    @Test func anUnversionedStoreIsRecognisedByItsShape() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try ModelContainer(for: NotesV2.Note.self, configurations: ModelConfiguration(url: store.url)))
        context.insert(NotesV2.Note(title: "Made at V2", body: "no version recorded"))
        try context.save()
        let willBefore = notesStageRuns.willMigrate.load(ordering: .relaxed)
        let notes = try ModelContext(try migrated(store)).fetch(FetchDescriptor<NotesV3.Note>())
        #expect(notes.map(\.text) == ["no version recorded"])
        #expect(notesStageRuns.willMigrate.load(ordering: .relaxed) == willBefore, "the V1 → V2 stage did not run")
    }

    @Test func aStoreWrittenWithTodaysMetadataFormatIsUpgraded() throws {
        let store = try v1Store()
        _ = try store.sql("UPDATE _modelkit_properties SET type = 'Swift.String' WHERE type = 'text'")
        _ = try store.sql("DELETE FROM _modelkit_store WHERE key = 'fingerprint'")
        let notes = try ModelContext(try migrated(store)).fetch(FetchDescriptor<NotesV3.Note>())
        #expect(notes.count == 2)
        #expect(try store.sql("SELECT DISTINCT type FROM _modelkit_properties WHERE entity = 'Note' AND property = 'text'") == [["text"]])
    }

    @Test func aStoreNewerThanThePlanIsRefusedUntouched() throws {
        let store = try v1Store()
        _ = try migrated(store)
        _ = try store.sql("UPDATE _modelkit_store SET value = '9.0.0' WHERE key = 'version'")
        #expect {
            try migrated(store)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.unknownStoreVersion(let version, let reason) = error else { return false }
            return version == "9.0.0" && reason.contains("newer")
        }
        #expect(try store.sql("SELECT value FROM _modelkit_store WHERE key = 'version'") == [["9.0.0"]])
    }

    /// The version the store records and the shape of its `Note` table.
    func recordedVersionAndColumns(_ store: TemporaryStore) throws -> ([[String]], [[String]]) {
        (try store.sql("SELECT value FROM _modelkit_store WHERE key = 'version'"), try store.sql("SELECT name FROM pragma_table_info('Note') ORDER BY name"))
    }

    func isBackwardMigration(_ error: any Error, from: String, to: String) -> Bool {
        guard (error as? SwiftDataError) == .backwardMigration, case .backwardMigration(from, to)? = modelKitError(error) else { return false }
        return true
    }

    @Test func aPlanWithAStageBackToAnEarlierVersionIsRefusedBeforeTheStoreIsTouched() throws {
        let store = try v1Store()
        _ = try migrated(store)
        let before = try recordedVersionAndColumns(store)
        #expect {
            try ModelContainer(for: NotesV1.Note.self, migrationPlan: DowngradingNotesPlan.self, configurations: ModelConfiguration(url: store.url))
        } throws: { isBackwardMigration($0, from: "3.0.0", to: "1.0.0") }
        #expect(try recordedVersionAndColumns(store) == before)
        #expect(DowngradingNotesPlan.runs.willMigrate.load(ordering: .relaxed) == 0 && DowngradingNotesPlan.runs.didMigrate.load(ordering: .relaxed) == 0)
        #expect(try ModelContext(try migrated(store)).fetchCount(FetchDescriptor<NotesV3.Note>()) == 2, "the store still opens at its version")
    }

    @Test func aContainerOnAnEarlierVersionThanTheStoresIsRefusedUntouched() throws {
        let store = try v1Store()
        _ = try migrated(store)
        let before = try recordedVersionAndColumns(store)
        #expect {
            try ModelContainer(for: NotesV1.Note.self, migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: store.url))
        } throws: { isBackwardMigration($0, from: "3.0.0", to: "1.0.0") }
        #expect(try recordedVersionAndColumns(store) == before)
    }
}

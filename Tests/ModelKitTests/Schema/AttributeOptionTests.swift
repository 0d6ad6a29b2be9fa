import Foundation
import ModelKit
import Testing

@Model final class Draft {
    var title: String
    @Attribute(.ephemeral) var cursor: Int = 0
    @Attribute(.ephemeral) var selection: String?
    @Attribute(.spotlight, .allowsCloudEncryption, hashModifier: "v2") var body: String = ""
    @Attribute(.codable) var origin: Origin = Origin(x: 1, y: 2)
    init(title: String) { self.title = title }
}

struct Origin: Codable, Equatable {
    var x: Int
    var y: Int
}

@Model final class BadDraft {
    @Attribute(.ephemeral) var cursor: Int
    init(cursor: Int) { self.cursor = cursor }
}

/// `@Attribute` options as SwiftData users write them.
@Suite struct AttributeOptionTests {
    @Test func anEphemeralPropertyIsTrackedButNeverStored() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Draft.self)
        let context = ModelContext(container)
        let draft = Draft(title: "Letter")
        draft.cursor = 42
        draft.selection = "Dear"
        context.insert(draft)
        try context.save()
        #expect(draft.cursor == 42, "the instance keeps its value")
        #expect(try store.sql("SELECT name FROM pragma_table_info('Draft')").map(\.[0]).contains("cursor") == false)

        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Draft>()).first)
        #expect(read.cursor == 0 && read.selection == nil, "read from the store: the defaults")
        read.cursor = 7
        #expect(reader.hasChanges)
        var statements: [String] = []
        reader.statementTrace = { statements.append($0) }
        try reader.save()
        #expect(!statements.contains { $0.hasPrefix("UPDATE") }, "nothing to write")
        let last = try #require(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        guard case .update(let update as DefaultHistoryUpdate<Draft>)? = last.changes.first else {
            Issue.record("the change is not in the history")
            return
        }
        #expect(update.updatedAttributes.count == 1 && update.updatedAttributes[0] == \Draft.cursor)
    }

    @Test func predicatesAndSortsOnAnEphemeralPropertyRunInSwift() throws {
        let context = ModelContext(try inMemoryContainer(for: Draft.self))
        for (title, cursor) in [("a", 3), ("b", 1), ("c", 2)] {
            let draft = Draft(title: title)
            draft.cursor = cursor
            context.insert(draft)
        }
        let unsaved = try context.fetch(FetchDescriptor<Draft>(predicate: #Predicate { $0.cursor > 1 }, sortBy: [SortDescriptor(\.cursor)]))
        #expect(unsaved.map(\.title) == ["c", "a"])
        try context.save()
        let saved = try context.fetch(FetchDescriptor<Draft>(predicate: #Predicate { $0.cursor > 1 }, sortBy: [SortDescriptor(\.cursor)]))
        #expect(saved.map(\.title) == ["c", "a"], "the registered instances still hold their values")
    }

    @Test func anEphemeralPropertyWithoutADefaultIsRefused() {
        #expect {
            _ = try inMemoryContainer(for: BadDraft.self)
        } throws: { error in
            guard case .invalidSchema(entity: "BadDraft", let reason)? = modelKitError(error) else { return false }
            return reason.contains("cursor")
        }
    }

    @Test func theOptionsWithoutAnEffectHereAreAcceptedAndCodableValuesRoundTrip() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Draft.self)
        let context = ModelContext(container)
        let draft = Draft(title: "t")
        draft.body = "text"
        draft.origin = Origin(x: -3, y: 9)
        context.insert(draft)
        try context.save()
        let read = try #require(try ModelContext(try store.container(for: Draft.self)).fetch(FetchDescriptor<Draft>()).first)
        #expect(read.body == "text" && read.origin == Origin(x: -3, y: 9))
        let body = try #require(container.schema.entitiesByName["Draft"]?.attributes.first { $0.name == "body" })
        #expect(body.options == [.spotlight, .allowsCloudEncryption] && body.hashModifier == "v2")
    }
}

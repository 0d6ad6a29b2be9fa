import Foundation
import ModelKit
import Testing

// Optional to-many relationships, the form CloudKit requires: nil and empty both hold no model.

@Model final class Folder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Memo.folder) var memos: [Memo]? = []
    init(name: String) { self.name = name }
}

@Model final class Memo {
    var text: String
    var folder: Folder?
    @Relationship(inverse: \Topic.memos) var topics: [Topic]? = nil
    init(text: String, folder: Folder? = nil) {
        self.text = text
        self.folder = folder
    }
}

@Model final class Topic {
    var name: String
    var memos: [Memo]? = []
    init(name: String) { self.name = name }
}

@Suite struct OptionalToManyTests {
    @Test(arguments: StoreKind.withPostgres) func anOptionalToManyIsStoredLoadedAndCascades(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Folder.self, Memo.self, Topic.self)
        let context = ModelContext(container)
        let work = Folder(name: "Work")
        let empty = Folder(name: "Empty")
        empty.memos = nil
        context.insert(work)
        context.insert(empty)
        work.memos?.append(Memo(text: "plan"))
        let call = Memo(text: "call", folder: work)
        context.insert(call)
        #expect(work.memos?.count == 2)
        #expect(call.folder === work)
        try context.save()

        let fresh = ModelContext(container)
        let folders = try fresh.fetch(FetchDescriptor<Folder>(sortBy: [SortDescriptor(\.name)]))
        #expect(folders.map(\.name) == ["Empty", "Work"])
        #expect(folders[0].memos?.isEmpty ?? true)
        #expect(Set(folders[1].memos?.map(\.text) ?? []) == ["plan", "call"])
        #expect(folders[1].memos?.allSatisfy { $0.folder === folders[1] } == true)

        fresh.delete(folders[1])
        try fresh.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Memo>()) == 0)
    }

    @Test(arguments: StoreKind.withPostgres) func anOptionalManyToManyKeepsBothSides(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Folder.self, Memo.self, Topic.self)
        let context = ModelContext(container)
        let memo = Memo(text: "m")
        let swift = Topic(name: "swift")
        context.insert(memo)
        context.insert(swift)
        memo.topics = [swift]
        #expect(swift.memos?.map(\.text) == ["m"])
        try context.save()
        memo.topics = nil
        #expect(swift.memos?.isEmpty == true)
        try context.save()

        let fresh = ModelContext(container)
        let topic = try #require(try fresh.fetch(FetchDescriptor<Topic>()).first)
        #expect(topic.memos?.isEmpty ?? true)
        let reloaded = try #require(try fresh.fetch(FetchDescriptor<Memo>()).first)
        #expect(reloaded.topics?.isEmpty ?? true)
    }

    @Test func anOptionalToManyDoesNotMakeTheContainerThrow() throws {
        let container = try ModelContainer(for: Folder.self, configurations: .init(isStoredInMemoryOnly: true))
        #expect(container.schema.entities.map(\.name).sorted() == ["Folder", "Memo", "Topic"])
    }
}

@Model final class Item {
    var name: String
    @Relationship(inverse: \Tag.items) var tags: [Tag] = []
    init(name: String) { self.name = name }
}

@Model final class Tag {
    var name: String
    var items: [Item] = []
    init(name: String) { self.name = name }
}

// To-many relationships hold each model once, as SwiftData's do.
@Suite struct ToManySetSemanticsTests {
    @Test(arguments: StoreKind.withPostgres) func assigningAModelTwiceHoldsItOnceOnBothSides(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Item.self, Tag.self)
        let context = ModelContext(container)
        let item = Item(name: "i")
        let tag = Tag(name: "t")
        context.insert(item)
        context.insert(tag)
        item.tags = [tag, tag]
        #expect(item.tags.count == 1)
        #expect(tag.items.count == 1)
        item.tags.append(tag)
        #expect(item.tags.count == 1)
        #expect(tag.items.count == 1)
        try context.save()
        let fresh = try #require(try ModelContext(container).fetch(FetchDescriptor<Item>()).first)
        #expect(fresh.tags.count == 1)
        #expect(fresh.tags.first?.items.count == 1)
    }

    @Test func anInitializerGivingAModelTwiceHoldsItOnce() throws {
        let container = try inMemoryContainer(for: Item.self, Tag.self)
        let context = ModelContext(container)
        let tag = Tag(name: "t")
        let item = Item(name: "i")
        item.tags = [tag, tag, Tag(name: "u"), tag]
        context.insert(item)
        #expect(item.tags.map(\.name) == ["t", "u"])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Tag>()) == 2)
        #expect(tag.items.count == 1)
    }
}

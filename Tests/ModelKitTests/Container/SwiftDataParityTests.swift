import Foundation
import ModelKit
import Testing

/// Parts of SwiftData's surface, written as SwiftData users write them.
@Suite struct SwiftDataParityTests {
    @Test func configurationsAreHashableAndTakeSwiftDatasInitializers() throws {
        let memory = ModelConfiguration(isStoredInMemoryOnly: true)
        let forTypes = ModelConfiguration(for: TodoItem.self, isStoredInMemoryOnly: true)
        let named = ModelConfiguration(
            "Notes", schema: nil, isStoredInMemoryOnly: true, allowsSave: true, groupContainer: .none, cloudKitDatabase: .none)
        let url = URL(fileURLWithPath: "/tmp/notes.store")
        let atURL = ModelConfiguration("Notes", schema: nil, url: url, allowsSave: false, cloudKitDatabase: .private("iCloud.example"))
        #expect(Set([memory, memory, named]).count == 2)
        #expect(forTypes.schema?.entities.map(\.name) == ["TodoItem"])
        #expect(atURL.url == url && !atURL.allowsSave)
        let container = try ModelContainer(for: TodoItem.self, configurations: memory)
        #expect(container.configurations == [memory])
        #expect(container.schema.entities.map(\.name) == ["TodoItem"])
    }

    @Test func persistentIdentifiersAreIdentifiable() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        let item = TodoItem(title: "a")
        context.insert(item)
        try context.save()
        let id: PersistentIdentifier.ID = item.persistentModelID.id
        #expect(id == item.persistentModelID.id)
        #expect(id != (try PersistentIdentifier.identifier(for: "x", entityName: "TodoItem", primaryKey: 1)).id)
        #expect(try JSONDecoder().decode(PersistentIdentifier.ID.self, from: JSONEncoder().encode(id)) == id)
        #expect(item.persistentModelID.entityName == "TodoItem")
        #expect(item.persistentModelID.storeIdentifier != nil)
    }

    @Test func deleteAllDataEmptiesTheStoreAndEveryContextHearsOfIt() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Shelf.self, Book.self, Post.self, Label.self)
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune")]
        let post = Post(title: "Hello")
        post.labels = [Label(name: "a")]
        context.insert(shelf)
        context.insert(post)
        try context.save()
        container.deleteAllData()
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 0)
        #expect(shelf.isDeleted)
        #expect(try store.sql("SELECT COUNT(*) FROM Label_posts") == [["0"]])
        try container.erase()
        context.insert(Shelf(name: "again"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Shelf>()) == 1)
    }

    @Test func processPendingChangesMergesOtherContextsSaves() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: TodoItem.self)
        let a = ModelContext(container)
        let item = TodoItem(title: "before")
        a.insert(item)
        try a.save()
        let b = ModelContext(container)
        try #require(try b.fetch(FetchDescriptor<TodoItem>()).first).title = "after"
        try b.save()
        a.processPendingChanges()
        #expect(item.title == "after")
    }
}

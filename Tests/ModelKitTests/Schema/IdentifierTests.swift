import Foundation
import ModelKit
import Testing

/// Identifiers name one row of one store, across launches; nothing else.
@Suite struct IdentifierTests {
    @Test func anIdentifierIsTheSameAfterReopeningTheStore() throws {
        let store = try TemporaryStore()
        let first = ModelContext(try store.container(for: TodoItem.self))
        let item = TodoItem(title: "kept")
        first.insert(item)
        try first.save()
        let saved = item.persistentModelID
        let encoded = try JSONEncoder().encode(saved)
        let reopened = ModelContext(try store.container(for: TodoItem.self))
        let fetched = try #require(try reopened.fetch(FetchDescriptor<TodoItem>()).first)
        #expect(fetched.persistentModelID == saved)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
        #expect((reopened.model(for: decoded) as? TodoItem) === fetched)
    }

    @Test func anUnsavedModelKeepsItsTemporaryIdentifierThroughAFailedSave() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let context = ModelContext(container)
        let stored = TodoItem(title: "stored")
        context.insert(stored)
        try context.save()
        try ModelContext(container).delete(model: TodoItem.self)

        let new = TodoItem(title: "new")
        context.insert(new)
        let temporary = new.persistentModelID
        stored.title = "changed after its row was deleted"
        #expect(throws: (any Error).self) { try context.save() }
        #expect(new.persistentModelID == temporary)
        #expect(new.persistentModelID.isTemporary)
        #expect(context.registeredModel(for: temporary) as TodoItem? === new)
    }

    @Test func anIdentifierOfAnotherStoreMatchesNothing() throws {
        let one = ModelContext(try TemporaryStore().container(for: TodoItem.self))
        let other = ModelContext(try inMemoryContainer(for: TodoItem.self))
        let mine = TodoItem(title: "mine")
        let theirs = TodoItem(title: "theirs")
        one.insert(mine)
        other.insert(theirs)
        try one.save()
        try other.save()
        #expect(mine.persistentModelID != theirs.persistentModelID)
        #expect(other.registeredModel(for: mine.persistentModelID) as TodoItem? == nil)
        let standIn = try #require(other.model(for: mine.persistentModelID) as? TodoItem)
        #expect(standIn !== theirs)
        #expect(standIn.persistentModelID == mine.persistentModelID)
        #expect(standIn.modelContext == nil)
    }

    @Test func modelForADeletedRowIsAStandInNotATrap() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        let item = TodoItem(title: "gone")
        context.insert(item)
        try context.save()
        let id = item.persistentModelID
        try context.delete(model: TodoItem.self)
        let standIn = try #require(context.model(for: id) as? TodoItem)
        #expect(standIn.persistentModelID == id)
        #expect(standIn.modelContext == nil)
        #expect(standIn.title == "")
        #expect(standIn.isComplete == false)
    }

    @Test func aModelKeepsItsIdentifierAfterItsDeletionIsSavedOrItsContextIsGone() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let deleted = TodoItem(title: "deleted")
        var kept: TodoItem?
        var ids: [PersistentIdentifier] = []
        do {
            let context = ModelContext(container)
            let item = TodoItem(title: "kept")
            context.insert(deleted)
            context.insert(item)
            try context.save()
            ids = [deleted.persistentModelID, item.persistentModelID]
            context.delete(deleted)
            try context.save()
            kept = item
        }
        let item = try #require(kept)
        #expect(deleted.modelContext == nil && item.modelContext == nil)
        #expect([deleted.persistentModelID, item.persistentModelID] == ids)
        #expect(ids.allSatisfy { $0.storeIdentifier != nil && !$0.isTemporary })
    }

    @Test func aModelInsertedIntoAnotherContextOfItsStoreKeepsItsRow() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        var carried: TodoItem?
        do {
            let context = ModelContext(container)
            context.insert(TodoItem(title: "first"))
            try context.save()
            carried = try context.fetch(FetchDescriptor<TodoItem>()).first
        }
        let item = try #require(carried)
        let id = item.persistentModelID
        let context = ModelContext(container)
        context.insert(item)
        #expect(item.modelContext === context)
        #expect(context.registeredModel(for: id) as TodoItem? === item)
        item.title = "changed"
        try context.save()
        #expect(item.persistentModelID == id)
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title) == ["changed"])
    }

    @Test func aModelFromAnotherStoreIsInsertedAsANewRowNeverOverwritingOne() throws {
        let source = try TemporaryStore()
        var carried: TodoItem?
        do {
            let context = ModelContext(try source.container(for: TodoItem.self))
            context.insert(TodoItem(title: "from the first store"))
            try context.save()
            carried = try context.fetch(FetchDescriptor<TodoItem>()).first
        }
        let target = ModelContext(try inMemoryContainer(for: TodoItem.self))
        target.insert(TodoItem(title: "already here"))
        try target.save()
        let moved = try #require(carried)
        target.insert(moved)
        try target.save()
        let titles = try target.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["already here", "from the first store"])
    }
}

@Suite struct MissingModelTests {
    @Test func aMissingRowOfATypeWithoutAStandInIsAMissingModel() throws {
        let container = try inMemoryContainer(for: Reader.self, Book.self, Shelf.self)
        let context = ModelContext(container)
        let reader = Reader(name: "Ada", bookmark: Book(title: "Dune"))
        context.insert(reader)
        try context.save()
        let id = reader.persistentModelID
        context.delete(reader)
        try context.save()
        let missing = context.model(for: id)
        #expect(missing is MissingModel)
        #expect(!(missing is Reader))
        #expect(missing.persistentModelID == id)
        #expect(missing.modelContext == nil)
    }
}

import Foundation
import ModelKit
import Observation
import Testing

@Suite struct ModelContextTests {
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        container = try inMemoryContainer(for: TodoItem.self, Note.self, Account.self)
        context = ModelContext(container)
    }

    func titles(_ descriptor: FetchDescriptor<TodoItem> = FetchDescriptor(), in context: ModelContext? = nil) throws -> [String] {
        try (context ?? ModelContext(container)).fetch(descriptor).map(\.title)
    }

    @Test func insertAndSaveStoreTheModel() throws {
        let item = TodoItem(title: "Buy milk")
        #expect(item.persistentModelID.isTemporary)
        context.insert(item)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        try context.save()
        #expect(!context.hasChanges)
        #expect(context.insertedModelsArray.isEmpty)
        #expect(!item.persistentModelID.isTemporary)
        #expect(item.modelContext === context)
        #expect(try titles() == ["Buy milk"])
    }

    @Test func defaultsAndTransientPropertiesBehaveAsInSwiftData() throws {
        let item = TodoItem(title: "a")
        item.cache = ["kept in memory only"]
        context.insert(item)
        try context.save()
        let read = try ModelContext(container).fetch(FetchDescriptor<TodoItem>())[0]
        #expect(read.priority == 0)
        #expect(read.isComplete == false)
        #expect(read.cache == [])
        #expect(read.summary == "a")
    }

    @Test func changesAreTrackedAndSaved() throws {
        let item = TodoItem(title: "a")
        context.insert(item)
        try context.save()
        item.isComplete = true
        #expect(context.hasChanges)
        #expect(item.hasChanges)
        #expect(context.changedModelsArray.map(\.persistentModelID) == [item.persistentModelID])
        try context.save()
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>())[0].isComplete)
    }

    @Test func saveWritesOnlyTheChangedColumns() throws {
        let item = TodoItem(title: "a")
        context.insert(item)
        try context.save()
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        item.priority = 3
        try context.save()
        #expect(statements.contains("UPDATE \"TodoItem\" SET \"priority\" = ? WHERE \"_pk\" = ?"))
        #expect(!statements.contains { $0.contains("\"title\" = ?") })
    }

    @Test func deleteRemovesTheRowOnSave() throws {
        let keep = TodoItem(title: "keep")
        let drop = TodoItem(title: "drop")
        context.insert(keep)
        context.insert(drop)
        try context.save()
        context.delete(drop)
        #expect(drop.isDeleted)
        #expect(context.deletedModelsArray.count == 1)
        #expect(try titles(in: context) == ["keep"])  // pending delete hidden from fetches
        #expect(try titles() == ["keep", "drop"])  // but still stored
        try context.save()
        #expect(try titles() == ["keep"])
        #expect(drop.modelContext == nil)
    }

    @Test func deletingAnUnsavedModelJustDropsIt() throws {
        let item = TodoItem(title: "a")
        context.insert(item)
        context.delete(item)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try titles().isEmpty)
    }

    @Test func rollbackDiscardsInsertsChangesAndDeletes() throws {
        let stored = TodoItem(title: "stored")
        let doomed = TodoItem(title: "doomed")
        context.insert(stored)
        context.insert(doomed)
        try context.save()

        let fresh = TodoItem(title: "fresh")
        context.insert(fresh)
        stored.title = "renamed"
        stored.isComplete = true
        context.delete(doomed)
        context.rollback()

        #expect(!context.hasChanges)
        #expect(stored.title == "stored")
        #expect(!stored.isComplete)
        #expect(!doomed.isDeleted)
        #expect(fresh.modelContext == nil)
        #expect(try titles(in: context).sorted() == ["doomed", "stored"])
    }

    /// Deleting a changed model drops it from the changed ones; rollback still gives it its
    /// stored values back, not only its place in the context.
    @Test func rollbackRestoresAModelChangedAndThenDeleted() throws {
        let item = TodoItem(title: "stored")
        context.insert(item)
        try context.save()
        item.title = "renamed"
        context.delete(item)
        context.rollback()
        #expect(item.title == "stored" && !item.isDeleted && item.modelContext === context)
        #expect(!context.hasChanges)
        try context.save()
        #expect(try titles(in: ModelContext(context.container)) == ["stored"])
    }

    @Test func aRowIsTheSameInstanceWithinAContext() throws {
        let item = TodoItem(title: "a")
        context.insert(item)
        try context.save()
        let first = try context.fetch(FetchDescriptor<TodoItem>())
        let second = try context.fetch(FetchDescriptor<TodoItem>())
        #expect(first[0] === item)
        #expect(second[0] === item)
        let other = ModelContext(container)
        let elsewhere = try other.fetch(FetchDescriptor<TodoItem>())[0]
        #expect(elsewhere !== item)
        #expect(elsewhere.persistentModelID == item.persistentModelID)
        #expect(try other.fetch(FetchDescriptor<TodoItem>())[0] === elsewhere)
    }

    @Test func modelForIdentifierFindsRegisteredAndStoredModels() throws {
        let item = TodoItem(title: "a")
        context.insert(item)
        #expect(context.registeredModel(for: item.persistentModelID) as TodoItem? === item)
        try context.save()
        let id = item.persistentModelID
        #expect(context.model(for: id) as? TodoItem === item)
        let other = ModelContext(container)
        #expect(other.registeredModel(for: id) as TodoItem? == nil)
        let loaded = try #require(other.model(for: id) as? TodoItem)
        #expect(loaded.title == "a")
        #expect(other.registeredModel(for: id) as TodoItem? === loaded)
    }

    @Test func didSavePostsTheInsertedUpdatedAndDeletedIdentifiers() throws {
        let updated = TodoItem(title: "updated")
        let deleted = TodoItem(title: "deleted")
        context.insert(updated)
        context.insert(deleted)
        try context.save()
        updated.isComplete = true
        context.delete(deleted)
        let inserted = TodoItem(title: "inserted")
        context.insert(inserted)
        let deletedID = deleted.persistentModelID

        nonisolated(unsafe) var payload: [AnyHashable: Any]?
        nonisolated(unsafe) var willSaveCount = 0
        let center = NotificationCenter.default
        let willSave = center.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { _ in willSaveCount += 1 }
        let didSave = center.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { payload = $0.userInfo }
        defer {
            center.removeObserver(willSave)
            center.removeObserver(didSave)
        }
        try context.save()

        #expect(willSaveCount == 1)
        let info = try #require(payload)
        #expect(info[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] == [inserted.persistentModelID])
        #expect(info[ModelContext.NotificationKey.updatedIdentifiers.rawValue] as? [PersistentIdentifier] == [updated.persistentModelID])
        #expect(info[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] == [deletedID])
        #expect(!inserted.persistentModelID.isTemporary)
    }

    /// A save's inserted identifiers come in the order the models were inserted, across
    /// entities, and are the models' saved identifiers.
    @Test func didSaveListsInsertedIdentifiersInInsertOrderAcrossEntities() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self, Note.self))
        let models: [any PersistentModel] = [
            TodoItem(title: "a"), Note(text: "b"), TodoItem(title: "c"), TodoItem(title: "d"), Note(text: "e"),
        ]
        for model in models { context.insert(model) }
        nonisolated(unsafe) var inserted: [PersistentIdentifier] = []
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) {
            inserted = $0.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        #expect(inserted == models.map(\.persistentModelID))
        #expect(inserted.allSatisfy { !$0.isTemporary } && Set(inserted.map(\.entityName)) == ["TodoItem", "Note"])
        let items: [TodoItem] = [0, 2, 3].compactMap { context.registeredModel(for: inserted[$0]) }
        #expect(items.map(\.title) == ["a", "c", "d"] && items[0] === models[0] as AnyObject)
    }

    @Test func transactionRunsTheBlockThenSaves() throws {
        try context.transaction {
            context.insert(TodoItem(title: "a"))
            context.insert(TodoItem(title: "b"))
        }
        #expect(!context.hasChanges)
        #expect(try titles() == ["a", "b"])
    }

    @Test func fetchSortsLimitsAndOffsets() throws {
        for title in ["d", "b", "a", "c", "e"] { context.insert(TodoItem(title: title)) }
        try context.save()
        var descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])
        #expect(try titles(descriptor) == ["a", "b", "c", "d", "e"])
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        #expect(try titles(descriptor) == ["b", "c"])
        descriptor = FetchDescriptor(sortBy: [SortDescriptor(\.title, order: .reverse)])
        descriptor.fetchOffset = 3
        #expect(try titles(descriptor) == ["b", "a"])
        #expect(try titles() == ["d", "b", "a", "c", "e"])  // insertion order without sortBy
    }

    @Test func fetchSortsBySeveralKeysAndKeepsStoreOrderForTies() throws {
        for (title, priority) in [("x", 2), ("y", 1), ("z", 2), ("w", 1)] {
            let item = TodoItem(title: title)
            item.priority = priority
            context.insert(item)
        }
        try context.save()
        let descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.priority, order: .reverse), SortDescriptor(\.title)])
        #expect(try titles(descriptor) == ["x", "z", "w", "y"])
    }

    @Test func fetchIncludesPendingChangesUnlessAskedNotTo() throws {
        context.insert(TodoItem(title: "b"))
        try context.save()
        context.insert(TodoItem(title: "a"))
        var descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])
        #expect(try titles(descriptor, in: context) == ["a", "b"])
        #expect(try context.fetchCount(descriptor) == 2)
        descriptor.includePendingChanges = false
        #expect(try titles(descriptor, in: context) == ["b"])
        #expect(try context.fetchCount(descriptor) == 1)
    }

    @Test func fetchEvaluatesPredicates() throws {
        for (title, done) in [("a", true), ("b", false), ("c", true)] {
            context.insert(TodoItem(title: title, isComplete: done))
        }
        try context.save()
        var descriptor = FetchDescriptor<TodoItem>(predicate: #Predicate { $0.isComplete }, sortBy: [SortDescriptor(\.title, order: .reverse)])
        #expect(try titles(descriptor) == ["c", "a"])
        descriptor.fetchLimit = 1
        #expect(try titles(descriptor) == ["c"])
        #expect(try context.fetchCount(descriptor) == 1)
    }

    @Test func fetchCountCountsWithoutLoadingModels() throws {
        for index in 0..<5 { context.insert(TodoItem(title: "\(index)")) }
        try context.save()
        let other = ModelContext(container)
        var statements: [String] = []
        other.statementTrace = { statements.append($0) }
        var descriptor = FetchDescriptor<TodoItem>()
        #expect(try other.fetchCount(descriptor) == 5)
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 3
        #expect(try other.fetchCount(descriptor) == 3)
        #expect(statements.allSatisfy { $0.hasPrefix("SELECT COUNT(*)") })
    }

    @Test func uniqueAttributeConflictUpdatesTheStoredRow() throws {
        context.insert(Account(code: "A-1", balance: 10))
        try context.save()
        let replacement = Account(code: "A-1", balance: 25)
        context.insert(replacement)
        try context.save()
        let accounts = try ModelContext(container).fetch(FetchDescriptor<Account>())
        #expect(accounts.count == 1)
        #expect(accounts.first?.balance == 25)
        #expect(accounts.first?.persistentModelID == replacement.persistentModelID)
    }

    @Test func uniqueConflictWithALoadedModelUpdatesThatInstance() throws {
        context.insert(Account(code: "A-1", balance: 10))
        try context.save()
        let loaded = try context.fetch(FetchDescriptor<Account>())[0]
        context.insert(Account(code: "A-1", balance: 25))
        try context.save()
        #expect(loaded.balance == 25)
        #expect(try context.fetch(FetchDescriptor<Account>()).map { $0 === loaded } == [true])
    }

    @Test func nonFinalModelClassesWork() throws {
        let note = Note(text: "hello")
        context.insert(note)
        try context.save()
        note.pinned = true
        try context.save()
        let read = try ModelContext(container).fetch(FetchDescriptor<Note>())
        #expect(read.map(\.text) == ["hello"])
        #expect(read.first?.pinned == true)
    }

    @Test func propertyReadsAndWritesAreObservable() throws {
        let item = TodoItem(title: "a")
        nonisolated(unsafe) var fired = 0
        withObservationTracking { _ = item.title } onChange: { fired += 1 }
        item.isComplete = true
        #expect(fired == 0)
        item.title = "b"
        #expect(fired == 1)
    }
}

@Suite struct ModelContextReinsertTests {
    @Test func aDroppedUnsavedModelCanBeInsertedAgain() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        let item = TodoItem(title: "a")
        context.insert(item)
        context.delete(item)
        context.insert(item)
        #expect(!item.isDeleted)
        try context.save()
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<TodoItem>()) == 1)
    }
}

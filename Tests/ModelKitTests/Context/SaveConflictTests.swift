import Foundation
import ModelKit
import Testing

/// A save that touches rows deleted elsewhere, or meets another process's lock, writes nothing.
@Suite struct SaveConflictTests {
    @Test(arguments: StoreKind.sharedStores) func changingARowDeletedElsewhereThrowsAConflictAndWritesNothing(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        let seeding = ModelContext(container)
        let doomed = TodoItem(title: "doomed")
        let kept = TodoItem(title: "kept")
        seeding.insert(doomed)
        seeding.insert(kept)
        try seeding.save()

        let a = ModelContext(container)
        let mine = try a.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]))
        mine[0].title = "edited after it was deleted"
        mine[1].priority = 3
        a.insert(TodoItem(title: "new"))

        let b = ModelContext(container)
        b.delete(try #require(try b.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == "doomed" })).first))
        try b.save()

        #expect {
            try a.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.saveConflict(let entity, let identifiers) = error else { return false }
            return entity == "TodoItem" && identifiers == [doomed.persistentModelID]
        }
        #expect(a.hasChanges, "the context keeps its changes")
        let stored = try ModelContext(container).fetch(FetchDescriptor<TodoItem>())
        #expect(stored.map(\.title) == ["kept"])
        #expect(stored.map(\.priority) == [0])

        a.rollback()
        #expect(mine[0].isDeleted)
        mine[1].priority = 4
        try a.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.priority) == [4])
    }

    /// SQLite reuses the largest key once its row is deleted; ModelKit's tables do not, so a
    /// change to a model whose row was deleted elsewhere can never land on a newer row.
    @Test(arguments: StoreKind.sharedStores) func aChangedModelWhoseRowWasDeletedNeverWritesToTheRowThatFollows(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        let a = ModelContext(container)
        let old = TodoItem(title: "old")
        a.insert(old)
        try a.save()
        let b = ModelContext(container)
        b.delete(try #require(b.model(for: old.persistentModelID) as? TodoItem))
        try b.save()
        old.title = "edited after it was deleted"
        let new = TodoItem(title: "new")
        a.insert(new)
        #expect {
            try a.save()
        } throws: { error in
            guard case .saveConflict? = modelKitError(error) else { return false }
            return true
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 0)
        let other = ModelContext(container)
        other.insert(TodoItem(title: "later"))
        try other.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.persistentModelID) != [old.persistentModelID])
    }

    @Test(arguments: StoreKind.sharedStores) func deletingARowDeletedElsewhereThrowsAConflict(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        let seeding = ModelContext(container)
        seeding.insert(TodoItem(title: "twice"))
        try seeding.save()
        let a = ModelContext(container)
        let item = try #require(try a.fetch(FetchDescriptor<TodoItem>()).first)
        a.delete(item)
        _ = try store.sql("DELETE FROM \"TodoItem\"")
        #expect(throws: ModelKitError.self) { try a.save() }
        #expect(a.hasChanges)
    }

    @Test func aStoreLockedByAnotherProcessPastTheTimeoutThrowsStoreLocked() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: TodoItem.self)
        let holder = try RawConnection(path: store.url.path)
        try holder.execute("BEGIN IMMEDIATE; INSERT INTO TodoItem (title, isComplete, priority) VALUES ('held', 0, 0)")
        let context = ModelContext(container)
        context.insert(TodoItem(title: "waits"))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.storeLocked(let url) = error else { return false }
            return url == store.url && "\(error)".contains("locked by another process")
        }
        try holder.execute("ROLLBACK")
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title) == ["waits"])
    }
}

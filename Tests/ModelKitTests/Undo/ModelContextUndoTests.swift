import Foundation
import ModelKit
import Testing

/// A context with an undo manager records its inserts, deletes and property changes, as
/// SwiftData's does: undo puts the context back, redo forward again, and a save after an undo
/// stores the undone state.
@MainActor @Suite struct ModelContextUndoTests {
    /// A context with an undo manager that groups by hand, as a test drives it.
    func undoingContext(_ container: ModelContainer) -> (ModelContext, UndoManager) {
        let context = ModelContext(container)
        let manager = UndoManager()
        manager.groupsByEvent = false
        context.undoManager = manager
        return (context, manager)
    }

    func titles(_ container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)])).map(\.title)
    }

    @Test(arguments: StoreKind.withPostgres)
    func undoOfAnInsertRemovesTheModelAndRedoBringsItBack(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self)
        let (context, manager) = undoingContext(container)
        let dune = Book(title: "Dune")
        context.insert(dune)
        #expect(context.insertedModelsArray.count == 1)
        manager.undo()
        #expect(!context.hasChanges && dune.modelContext == nil)
        manager.redo()
        #expect(context.insertedModelsArray.count == 1)
        try context.save()
        #expect(try titles(container) == ["Dune"])
        // After the save, undoing the insert deletes the stored row.
        manager.undo()
        try context.save()
        #expect(try titles(container) == [])
    }

    @Test(arguments: StoreKind.withPostgres)
    func undoOfADeleteKeepsTheModelAndASaveAfterItKeepsTheRow(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self)
        let (context, manager) = undoingContext(container)
        let dune = Book(title: "Dune")
        context.insert(dune)
        try context.save()
        manager.removeAllActions()

        context.delete(dune)
        #expect(dune.isDeleted)
        manager.undo()
        #expect(!dune.isDeleted && !context.hasChanges)
        try context.save()
        #expect(try titles(container) == ["Dune"])

        context.delete(dune)
        try context.save()
        #expect(try titles(container) == [])
        manager.undo()  // the row is gone: the model comes back as a new one
        try context.save()
        #expect(try titles(container) == ["Dune"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func undoOfAPropertyChangeRestoresTheValueAndASaveStoresIt(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self)
        let (context, manager) = undoingContext(container)
        let book = Book(title: "Dune")
        context.insert(book)
        try context.save()
        manager.removeAllActions()

        book.title = "Dune Messiah"
        try context.save()
        manager.undo()
        #expect(book.title == "Dune")
        try context.save()
        #expect(try titles(container) == ["Dune"])
        manager.redo()
        #expect(book.title == "Dune Messiah")
        try context.save()
        #expect(try titles(container) == ["Dune Messiah"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func undoOfARelationshipChangeRestoresBothSides(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self)
        let (context, manager) = undoingContext(container)
        let fiction = Shelf(name: "Fiction")
        let science = Shelf(name: "Science")
        let dune = Book(title: "Dune")
        [fiction, science].forEach(context.insert)
        context.insert(dune)
        dune.shelf = fiction
        try context.save()
        manager.removeAllActions()

        dune.shelf = science
        #expect(fiction.books.isEmpty && science.books.map(\.title) == ["Dune"])
        manager.undo()
        #expect(dune.shelf === fiction && fiction.books.map(\.title) == ["Dune"] && science.books.isEmpty)

        let emma = Book(title: "Emma")
        context.insert(emma)
        manager.removeAllActions()
        fiction.books.append(emma)  // the to-many side
        #expect(emma.shelf === fiction)
        manager.undo()
        #expect(emma.shelf == nil && fiction.books.map(\.title) == ["Dune"])
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<Shelf>(predicate: #Predicate { $0.name == "Fiction" }))
        #expect(stored.first?.books.map(\.title) == ["Dune"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func aGroupedEditUndoesAsOne(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self)
        let (context, manager) = undoingContext(container)
        let shelf = Shelf(name: "Fiction")
        context.insert(shelf)
        try context.save()
        manager.removeAllActions()

        manager.beginUndoGrouping()
        shelf.name = "Novels"
        let dune = Book(title: "Dune", shelf: shelf)
        context.insert(dune)
        manager.endUndoGrouping()
        manager.undo()
        #expect(shelf.name == "Fiction" && shelf.books.isEmpty && context.insertedModelsArray.isEmpty)
        manager.redo()
        #expect(shelf.name == "Novels" && shelf.books.map(\.title) == ["Dune"])
        try context.save()
        #expect(try titles(container) == ["Dune"])
    }

    @Test func aContextWithoutAnUndoManagerRecordsNothing() throws {
        let context = ModelContext(try inMemoryContainer(for: Shelf.self, Book.self))
        #expect(context.undoManager == nil)
        context.insert(Book(title: "Dune"))
        try context.save()
    }
}

import Foundation
import ModelKit
import Testing

/// Containers and contexts go away when the program lets go of them, file descriptors included.
@Suite(.serialized) struct ResourceLeakTests {
    /// The process's open file descriptors on files under `directories`; other tests running in
    /// parallel open files of their own.
    func openFileDescriptors(under directories: [URL]) throws -> Int {
        let prefixes = directories.map(\.path)
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return false }
            return prefixes.contains { target.hasPrefix($0) }
        }.count
    }

    /// Opens a container on its own file, saves and reads related models, and lets go of it.
    func useAndRelease(_ store: TemporaryStore) throws {
        let container = try store.container(for: Shelf.self, Book.self)
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
        context.insert(shelf)
        try context.save()
        let reader = ModelContext(container)
        for book in try reader.fetch(FetchDescriptor<Book>()) { _ = book.shelf?.books.count }
    }

    @Test func fiftyContainersWithRelationshipsAreReleasedWithTheirFiles() throws {
        let stores = try (0..<50).map { _ in try TemporaryStore() }
        for store in stores { try useAndRelease(store) }
        #expect(try openFileDescriptors(under: stores.map(\.directory)) == 0)
        for store in stores {
            #expect(!FileManager.default.fileExists(atPath: store.url.path + "-wal"), "closing the last connection checkpoints the WAL")
        }
    }
}

@Suite struct UnloadedRelationshipTests {
    /// A container holding a saved shelf "Fiction" of "Dune" and "Emma".
    private func shelfOfTwoBooks() throws -> ModelContainer {
        let container = try inMemoryContainer(for: Shelf.self, Book.self)
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
        context.insert(shelf)
        try context.save()
        return container
    }

    @Test func prefetchedRelationshipsReloadAfterTheirContextIsGone() throws {
        let container = try shelfOfTwoBooks()
        var descriptor = FetchDescriptor<Shelf>()
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        let shelves = try ModelContext(container).fetch(descriptor)  // that context is gone at once
        #expect(shelves[0].books.map(\.title).sorted() == ["Dune", "Emma"])
    }

    /// Both sides of a relationship read (a cycle), then the context goes: the models the
    /// program holds load both sides again from the store, neither reads as empty. A shelf and a
    /// book whose other relationships were all read have no faults left when their context goes.
    @Test func relationshipsReadOnBothSidesReloadAfterTheirContextIsGone() throws {
        let container = try shelfOfTwoBooks()
        var held: (shelf: Shelf, book: Book)?
        do {
            let context = ModelContext(container)
            let fetched = try context.fetch(FetchDescriptor<Shelf>())[0]
            let book = fetched.books.first { $0.title == "Dune" }!
            #expect(book.shelf === fetched)
            held = (fetched, book)
        }
        #expect(held?.shelf.books.map(\.title).sorted() == ["Dune", "Emma"])
        #expect(held?.book.shelf?.name == "Fiction")
    }
}

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

/// A context's teardown breaks the cycles its models' relationships may hold, whichever way
/// they loaded: the teardown unloads what the context noted as loaded, without looking at every
/// model, so each way a relationship can load must be noted.
@Suite struct TeardownCycleTests {
    enum Way: String, CaseIterable, Sendable {
        case inserted, insertedThroughItsBook, readFromTheShelf, readFromTheBook, prefetched
    }

    @Test(arguments: Way.allCases)
    func modelsGoWithTheirContextWhicheverWayTheirRelationshipsLoaded(_ way: Way) throws {
        let container = try inMemoryContainer(for: Shelf.self, Book.self)
        do {
            let setup = ModelContext(container)
            let shelf = Shelf(name: "Fiction")
            shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
            setup.insert(shelf)
            try setup.save()
        }
        weak var shelf: Shelf?
        weak var book: Book?
        do {
            let context = ModelContext(container)
            let held: (Shelf, Book)
            switch way {
            case .inserted:
                let made = Shelf(name: "New")
                made.books = [Book(title: "Solaris")]
                context.insert(made)
                try context.save()
                held = (made, made.books[0])
            case .readFromTheShelf:
                let fetched = try context.fetch(FetchDescriptor<Shelf>())[0]
                held = (fetched, fetched.books[0])
                #expect(held.1.shelf === fetched)
            case .readFromTheBook:
                let fetched = try context.fetch(FetchDescriptor<Book>())[0]
                let owner = try #require(fetched.shelf)
                #expect(owner.books.contains { $0 === fetched })
                held = (owner, fetched)
            case .prefetched:
                var descriptor = FetchDescriptor<Shelf>()
                descriptor.relationshipKeyPathsForPrefetching = [\.books]
                let fetched = try context.fetch(descriptor)[0]
                held = (fetched, fetched.books[0])
                #expect(held.1.shelf === fetched)
            case .insertedThroughItsBook:
                // The shelf joins the context through the book's relationship, not an insert.
                let made = Book(title: "Solaris", shelf: Shelf(name: "New"))
                context.insert(made)
                try context.save()
                let owner = try #require(made.shelf)
                #expect(owner.books.contains { $0 === made })
                held = (owner, made)
            }
            (shelf, book) = held
            #expect(shelf != nil && book != nil)
        }
        #expect(shelf == nil, "the shelf outlived its context: a cycle was left")
        #expect(book == nil, "the book outlived its context: a cycle was left")
    }
}

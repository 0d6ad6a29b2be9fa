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
/// they loaded: the teardown unloads what the context noted as written, without looking at every
/// model, so each way a relationship can come to hold a model must be noted.
@Suite struct TeardownCycleTests {
    enum Way: String, CaseIterable, Sendable {
        case inserted, insertedThroughItsBook, readFromTheShelf, readFromTheBook, prefetched
        /// A book stored without a shelf (no fault to load) is given one by its setter.
        case emptyToOneSet
        /// A book stored without a shelf joins a loaded list: the inverse upkeep sets its shelf.
        case emptyToOneJoinedThroughTheList
        /// The to-one side is inherited: a sticky pin (a subclass of pin) reads its pinboard.
        case inheritedToOne
        /// A lodging and its excursion, each the other's only one.
        case oneToOne
        /// A label's posts and a post's labels, through a join table.
        case manyToMany
    }

    @Test(arguments: Way.allCases)
    func modelsGoWithTheirContextWhicheverWayTheirRelationshipsLoaded(_ way: Way) throws {
        let container = try inMemoryContainer(
            for: Shelf.self, Book.self, Pinboard.self, Pin.self, StickyPin.self, Excursion.self, Lodging.self, ExcursionStop.self, Label.self, Post.self)
        do {
            let setup = ModelContext(container)
            let shelf = Shelf(name: "Fiction")
            shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
            setup.insert(shelf)
            setup.insert(Book(title: "Loose"))
            let pinboard = Pinboard(name: "Kitchen")
            pinboard.pins = [StickyPin(text: "Milk", color: "yellow")]
            setup.insert(pinboard)
            let trip = Excursion(name: "Rome", destination: "Italy")
            trip.lodging = Lodging(placeName: "Hotel")
            setup.insert(trip)
            let label = Label(name: "news")
            label.posts = [Post(title: "Launch")]
            setup.insert(label)
            try setup.save()
        }
        weak var owner: AnyObject?
        weak var member: AnyObject?
        do {
            let context = ModelContext(container)
            let held: (AnyObject, AnyObject)
            func fiction() throws -> Shelf { try context.fetch(FetchDescriptor<Shelf>(predicate: #Predicate { $0.name == "Fiction" }))[0] }
            func loose() throws -> Book { try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Loose" }))[0] }
            switch way {
            case .inserted:
                let made = Shelf(name: "New")
                made.books = [Book(title: "Solaris")]
                context.insert(made)
                try context.save()
                held = (made, made.books[0])
            case .insertedThroughItsBook:
                // The shelf joins the context through the book's relationship, not an insert.
                let made = Book(title: "Solaris", shelf: Shelf(name: "New"))
                context.insert(made)
                try context.save()
                let shelf = try #require(made.shelf)
                #expect(shelf.books.contains { $0 === made })
                held = (shelf, made)
            case .readFromTheShelf:
                let shelf = try fiction()
                held = (shelf, shelf.books[0])
                #expect(shelf.books[0].shelf === shelf)
            case .readFromTheBook:
                let book = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Dune" }))[0]
                let shelf = try #require(book.shelf)
                #expect(shelf.books.contains { $0 === book })
                held = (shelf, book)
            case .prefetched:
                var descriptor = FetchDescriptor<Shelf>()
                descriptor.relationshipKeyPathsForPrefetching = [\.books]
                let shelf = try context.fetch(descriptor)[0]
                held = (shelf, shelf.books[0])
                #expect(shelf.books[0].shelf === shelf)
            case .emptyToOneSet:
                let (shelf, book) = (try fiction(), try loose())
                #expect(shelf.books.count == 2 && book.shelf == nil)
                book.shelf = shelf
                #expect(shelf.books.contains { $0 === book })
                held = (shelf, book)
            case .emptyToOneJoinedThroughTheList:
                let (shelf, book) = (try fiction(), try loose())
                #expect(shelf.books.count == 2 && book.shelf == nil)
                shelf.books.append(book)
                #expect(book.shelf === shelf)
                held = (shelf, book)
            case .inheritedToOne:
                let pin = try #require(try context.fetch(FetchDescriptor<StickyPin>()).first)
                let pinboard = try #require(pin.pinboard)
                #expect(pinboard.pins.contains { $0 === pin })
                held = (pinboard, pin)
            case .oneToOne:
                let lodging = try #require(try context.fetch(FetchDescriptor<Lodging>()).first)
                let trip = try #require(lodging.excursion)
                #expect(trip.lodging === lodging)
                held = (trip, lodging)
            case .manyToMany:
                let label = try #require(try context.fetch(FetchDescriptor<Label>()).first)
                let post = try #require(label.posts.first)
                #expect(post.labels.contains { $0 === label })
                held = (label, post)
            }
            (owner, member) = held
            #expect(owner != nil && member != nil)
        }
        #expect(owner == nil, "the owner outlived its context: a cycle was left")
        #expect(member == nil, "the member outlived its context: a cycle was left")
    }
}

/// A pinboard of pins, some of them sticky: a to-one inherited by a subclass, whose inverse is a
/// to-many of the base class.
@Model final class Pinboard {
    var name: String
    @Relationship(inverse: \Pin.pinboard) var pins: [Pin] = []
    init(name: String) { self.name = name }
}

@Model class Pin {
    var text: String
    var pinboard: Pinboard?
    init(text: String) { self.text = text }
}

@Model final class StickyPin: Pin {
    var color: String
    init(text: String, color: String) {
        self.color = color
        super.init(text: text)
    }
}

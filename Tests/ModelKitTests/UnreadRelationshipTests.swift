import Foundation
import Testing

@testable import ModelKit

/// Relationships not loaded yet stay unloaded through changes that do not need them: children joining
/// and leaving a list, rollbacks, merges.
@Suite struct UnreadRelationshipTests {
    /// A shelf with 1,000 stored books, in a new context that has not loaded the list.
    private func shelfWithBooks(_ container: ModelContainer) throws -> (ModelContext, Shelf) {
        let writer = ModelContext(container)
        let shelf = Shelf(name: "big")
        writer.insert(shelf)
        for index in 0..<1_000 { writer.insert(Book(title: "b\(index)", shelf: shelf)) }
        try writer.save()
        let context = ModelContext(container)
        return (context, try context.fetch(FetchDescriptor<Shelf>())[0])
    }

    private func booksColumn(_ container: ModelContainer) -> Int {
        container.schema.entity(for: Shelf.self)!.column(for: \Shelf.books)!
    }

    /// Setting a book's shelf does not read the shelf's books; reading them later shows the book,
    /// and the save stores it there.
    @Test func joiningAListThatIsNotLoadedReadsNoneOfIt() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let book = Book(title: "new")
        context.insert(book)
        book.shelf = shelf
        #expect(statements.isEmpty)
        #expect(shelf._$modelKit.faults?[booksColumn(container)] != nil)
        #expect(shelf.hasChanges)
        #expect(shelf.books.count == 1_001 && shelf.books.last === book)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Shelf>())[0].books.count == 1_001)
    }

    /// A book leaving an unloaded list, to another shelf or by being deleted, is gone from it
    /// when it loads, before and after the save; deleting the book reads none of the list.
    @Test func leavingAListThatIsNotLoadedTakesTheBookOutWhenItLoads() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        let other = Shelf(name: "other")
        context.insert(other)
        let moved = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "b1" }))[0]
        let deleted = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "b2" }))[0]
        moved.shelf = other
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        context.delete(deleted)
        try context.save()
        #expect(!statements.contains { $0.contains("SELECT") && $0.contains("\"Book\"") })
        #expect(shelf._$modelKit.faults?[booksColumn(container)] != nil)
        let titles = Set(shelf.books.map(\.title))
        #expect(titles.count == 998 && !titles.contains("b1") && !titles.contains("b2"))
        #expect(other.books.map(\.title) == ["b1"])
    }

    /// Once saved, a change no longer waits for the list: a move another context saves afterwards
    /// is what the list shows when it loads.
    @Test func aSavedChangeIsNotAppliedAgainWhenTheListLoadsLater() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        let book = Book(title: "joined")
        context.insert(book)
        book.shelf = shelf
        try context.save()
        let other = ModelContext(container)
        let elsewhere = Shelf(name: "elsewhere")
        other.insert(elsewhere)
        try other.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "joined" }))[0].shelf = elsewhere
        try other.save()
        context.processPendingChanges()
        #expect(shelf._$modelKit.faults?[booksColumn(container)] != nil)
        #expect(!shelf.books.contains { $0.title == "joined" })
        #expect(book.shelf?.name == "elsewhere")
    }

    /// A rollback drops the changes waiting for a list with the rest: the list loads as stored.
    @Test func aRollbackDropsTheChangesWaitingForAList() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        let other = Shelf(name: "other")
        context.insert(other)
        try context.save()
        let book = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "b1" }))[0]
        book.shelf = other
        #expect(other._$modelKit.faults?[booksColumn(container)] == nil)  // inserted here: loaded
        context.rollback()
        #expect(book.shelf === shelf)
        #expect(shelf.books.count == 1_000 && shelf.books.contains { $0 === book })
    }

    /// Rolling back a change to a shelf reads its row again, and none of its unloaded books.
    @Test func rollingBackAShelfLeavesItsUnloadedListUnread() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        shelf.name = "renamed"
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        context.rollback()
        #expect(shelf.name == "big")
        #expect(!statements.contains { $0.contains("FROM \"Book\"") })
        #expect(shelf._$modelKit.faults?[booksColumn(container)] != nil)
        #expect(shelf.books.count == 1_000)
    }

    /// Books whose shelf is not loaded, moved by another context, take the new shelf in the merge
    /// without loading the old one or the new one.
    @Test func aMergeMovesUnloadedToOnesWithoutLoadingThem() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (writer, shelf) = try shelfWithBooks(container)
        let other = Shelf(name: "other")
        writer.insert(other)
        try writer.save()
        let reader = ModelContext(container)
        let books = try reader.fetch(FetchDescriptor<Book>())
        for book in try writer.fetch(FetchDescriptor<Book>()).prefix(100) { book.shelf = other }
        try writer.save()
        var statements: [String] = []
        reader.statementTrace = { statements.append($0) }
        reader.processPendingChanges()
        #expect(!statements.contains { $0.contains("FROM \"Shelf\"") })
        #expect(books.filter { $0.shelf?.name == "other" }.count == 100)
        withExtendedLifetime(shelf) {}
    }

    /// A book given a shelf before it is inserted anywhere is inserted by the save, as one the
    /// shelf's loaded list held would be.
    @Test func aBookInNoContextJoiningAnUnloadedListIsSaved() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        Book(title: "loose").shelf = shelf
        try context.save()
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "loose" }))
        #expect(stored.first?.shelf?.name == "big")
    }

    /// A cascade from a deleted shelf deletes the books that joined its unloaded list too.
    @Test func aCascadeTakesTheBooksThatJoinedTheUnloadedList() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        let book = Book(title: "joined")
        context.insert(book)
        book.shelf = shelf
        context.delete(shelf)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 0)
    }

    /// Random moves, inserts and deletes of books across shelves whose lists are loaded or not,
    /// with reads, prefetches, saves, rollbacks and failed transactions in between, agree with a
    /// plain table of which shelf each book is on.
    @Test(arguments: StoreKind.withPostgres, 0..<8)
    func listsAgreeWithEachBooksShelfThroughRandomChanges(kind: StoreKind, seed: Int) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self)
        let random = SeededRandom(seed: UInt64(seed) &+ 101)
        let names = (0..<4).map { "s\($0)" }
        var saved: [String: String?] = [:]  // book title: shelf name, as stored
        do {
            let writer = ModelContext(container)
            let shelves = names.map { Shelf(name: $0) }
            for shelf in shelves { writer.insert(shelf) }
            for index in 0..<40 {
                let shelf = random.chance(80) ? random.pick(shelves) : nil
                writer.insert(Book(title: "b\(index)", shelf: shelf))
                saved["b\(index)"] = shelf?.name
            }
            try writer.save()
        }
        var current = saved
        var deleted: Set<String> = []  // in their shelves' lists until the save
        var context = ModelContext(container)
        var shelves: [String: Shelf] = [:]
        var books: [String: Book] = [:]
        func refetch() throws {
            shelves = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Shelf>()).map { ($0.name, $0) })
            books = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Book>()).map { ($0.title, $0) })
        }
        func expected(on name: String, in table: [String: String?]) -> Set<String> {
            Set(table.compactMap { $0.value == name ? $0.key : nil })
        }
        try refetch()
        var made = 0
        func randomChange() {
            let shelf = random.chance(85) ? shelves[random.pick(names)] : nil
            switch random.next() % 6 {
            case 0, 1, 2:
                guard !books.isEmpty else { return }
                let title = random.pick(books.keys.sorted())
                books[title]!.shelf = shelf
                current[title] = shelf?.name
            case 3:
                made += 1
                let title = "n\(made)"
                let book = Book(title: title)
                switch random.next() % 3 {
                case 0:
                    context.insert(book)
                    book.shelf = shelf
                case 1:
                    book.shelf = shelf
                    context.insert(book)
                default:
                    // In no context: the save inserts it, through the shelf. Not moved again here.
                    guard shelf != nil else { return }
                    book.shelf = shelf
                    current[title] = shelf?.name
                    return
                }
                books[title] = book
                current[title] = shelf?.name
            case 4:
                guard !books.isEmpty else { return }
                let title = random.pick(books.keys.sorted())
                context.delete(books.removeValue(forKey: title)!)
                deleted.insert(title)
            default:
                let name = random.pick(names)
                #expect(Set(shelves[name]!.books.map(\.title)) == expected(on: name, in: current), "read \(name)")
            }
        }
        for _ in 0..<150 {
            switch random.next() % 20 {
            case 0:
                try context.save()
                for title in deleted { current.removeValue(forKey: title) }
                deleted = []
                saved = current
                let reader = ModelContext(container)
                for shelf in try reader.fetch(FetchDescriptor<Shelf>()) {
                    #expect(Set(shelf.books.map(\.title)) == expected(on: shelf.name, in: saved), "stored \(shelf.name)")
                }
                if random.chance(50) {
                    context = ModelContext(container)
                    try refetch()
                }
            case 1:
                context.rollback()
                current = saved
                deleted = []
                try refetch()
            case 2:
                let before = (current, deleted)
                #expect(throws: CancellationError.self) {
                    try context.transaction {
                        for _ in 0..<3 { randomChange() }
                        throw CancellationError()
                    }
                }
                (current, deleted) = before
                try refetch()
            case 3:
                var descriptor = FetchDescriptor<Shelf>()
                descriptor.relationshipKeyPathsForPrefetching = [\.books]
                for shelf in try context.fetch(descriptor) {
                    #expect(Set(shelf.books.map(\.title)) == expected(on: shelf.name, in: current), "prefetched \(shelf.name)")
                }
            default:
                randomChange()
            }
        }
    }
}

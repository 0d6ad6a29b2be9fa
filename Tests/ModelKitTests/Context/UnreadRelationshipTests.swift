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

    /// Hundreds of changes waiting for one list apply in order when it loads: the books that left
    /// and did not come back are gone, the ones that came back follow the rest, in the order
    /// they came back.
    @Test func manyChangesWaitingForAListApplyInTheOrderTheyWereMade() throws {
        let container = try inMemoryContainer(for: Shelf.self)
        let (context, shelf) = try shelfWithBooks(container)
        let other = Shelf(name: "other")
        context.insert(other)
        let books = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        let byNumber = Dictionary(uniqueKeysWithValues: books.map { (Int($0.title.dropFirst())!, $0) })
        for number in stride(from: 0, to: 1_000, by: 2) { byNumber[number]!.shelf = other }
        let returning = stride(from: 996, through: 0, by: -4).map { $0 }
        for number in returning { byNumber[number]!.shelf = shelf }
        #expect(shelf._$modelKit.faults?[booksColumn(container)] != nil)
        let expected = stride(from: 1, to: 1_000, by: 2).map { "b\($0)" } + returning.map { "b\($0)" }
        #expect(shelf.books.map(\.title) == expected)
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

/// Many-to-many lists not loaded yet stay unloaded when a model joins or leaves them from the
/// other side, and the save writes only the links that changed.
@Suite struct UnreadManyToManyTests {
    /// A label on 1,000 stored posts, in a new context that has not loaded its posts.
    private func popularLabel(_ container: ModelContainer) throws -> (ModelContext, Label) {
        let writer = ModelContext(container)
        let label = Label(name: "popular")
        writer.insert(label)
        for index in 0..<1_000 {
            let post = Post(title: "p\(index)")
            writer.insert(post)
            post.labels.append(label)
        }
        try writer.save()
        let context = ModelContext(container)
        return (context, try context.fetch(FetchDescriptor<Label>())[0])
    }

    private func storedTitles(of label: String, in container: ModelContainer) throws -> Set<String> {
        let labels = try ModelContext(container).fetch(FetchDescriptor<Label>(predicate: #Predicate { $0.name == label }))
        return Set(labels.first?.posts.map(\.title) ?? [])
    }

    /// Labeling a post with a label whose posts are not loaded reads none of them, and the save
    /// writes the one link (it had deleted and written all 1,000 again).
    @Test func labelingAPostReadsNoneOfTheLabelsPostsAndWritesOneLink() throws {
        let container = try inMemoryContainer(for: Post.self)
        let (context, label) = try popularLabel(container)
        let post = Post(title: "new")
        context.insert(post)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        post.labels.append(label)
        try context.save()
        #expect(!statements.contains { $0.contains("FROM \"Label_posts\"") })
        #expect(statements.filter { $0.contains("INTO \"Label_posts\"") }.count == 1)
        #expect(label.posts.count == 1_001 && label.posts.contains { $0 === post })
        #expect(try storedTitles(of: "popular", in: container).count == 1_001)
    }

    /// Taking a label off a post and putting it back, while the label's posts are not loaded,
    /// keeps the link; putting it on and taking it off leaves none.
    @Test func theLastOfSeveralChangesToOneLinkIsTheOneSaved() throws {
        let container = try inMemoryContainer(for: Post.self)
        let (context, label) = try popularLabel(container)
        let kept = try context.fetch(FetchDescriptor<Post>(predicate: #Predicate { $0.title == "p3" }))[0]
        kept.labels.removeAll { $0 === label }
        kept.labels.append(label)
        let passing = Post(title: "passing")
        context.insert(passing)
        passing.labels.append(label)
        passing.labels.removeAll { $0 === label }
        try context.save()
        let titles = try storedTitles(of: "popular", in: container)
        #expect(titles.count == 1_000 && titles.contains("p3") && !titles.contains("passing"))
    }

    /// A loaded list's save writes what it gained and lost against the stored links.
    @Test func aLoadedListWritesWhatItGainedAndLost() throws {
        let container = try inMemoryContainer(for: Post.self)
        let (context, label) = try popularLabel(container)
        let post = Post(title: "new")
        context.insert(post)
        label.posts.removeAll { $0.title == "p7" }
        label.posts.append(post)
        try context.save()
        let titles = try storedTitles(of: "popular", in: container)
        #expect(titles.count == 1_000 && titles.contains("new") && !titles.contains("p7"))
    }

    /// Random labelings and unlabelings from either side, with either side's list loaded or not,
    /// saves, rollbacks and new contexts, agree with a plain set of (post, label) pairs.
    @Test(arguments: StoreKind.withPostgres, 0..<6)
    func linksAgreeWithASetOfPairsThroughRandomChanges(kind: StoreKind, seed: Int) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Post.self)
        let random = SeededRandom(seed: UInt64(seed) &+ 7)
        let labelNames = (0..<3).map { "l\($0)" }
        let postTitles = (0..<12).map { "p\($0)" }
        var saved: Set<[String]> = []  // [post title, label name]
        do {
            let writer = ModelContext(container)
            let labels = labelNames.map { Label(name: $0) }
            for label in labels { writer.insert(label) }
            for title in postTitles {
                let post = Post(title: title)
                writer.insert(post)
                for label in labels where random.chance(40) {
                    post.labels.append(label)
                    saved.insert([title, label.name])
                }
            }
            try writer.save()
        }
        var current = saved
        var context = ModelContext(container)
        var posts: [String: Post] = [:]
        var labels: [String: Label] = [:]
        func refetch() throws {
            posts = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Post>()).map { ($0.title, $0) })
            labels = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Label>()).map { ($0.name, $0) })
        }
        try refetch()
        for _ in 0..<120 {
            let (title, name) = (random.pick(postTitles), random.pick(labelNames))
            let (post, label) = (posts[title]!, labels[name]!)
            switch random.next() % 10 {
            case 0, 1:
                guard !current.contains([title, name]) else { continue }
                post.labels.append(label)
                current.insert([title, name])
            case 2, 3:
                guard !current.contains([title, name]) else { continue }
                label.posts.append(post)
                current.insert([title, name])
            case 4:
                post.labels.removeAll { $0 === label }
                current.remove([title, name])
            case 5:
                label.posts.removeAll { $0 === post }
                current.remove([title, name])
            case 6:
                #expect(Set(label.posts.map(\.title)) == Set(current.filter { $0[1] == name }.map { $0[0] }), "\(name)'s posts")
                #expect(Set(post.labels.map(\.name)) == Set(current.filter { $0[0] == title }.map { $0[1] }), "\(title)'s labels")
            case 7:
                context.rollback()
                current = saved
                try refetch()
            default:
                try context.save()
                saved = current
                let reader = ModelContext(container)
                var stored: Set<[String]> = []
                for label in try reader.fetch(FetchDescriptor<Label>()) {
                    for post in label.posts { stored.insert([post.title, label.name]) }
                }
                #expect(stored == saved)
                if random.chance(50) {
                    context = ModelContext(container)
                    try refetch()
                }
            }
        }
    }
}

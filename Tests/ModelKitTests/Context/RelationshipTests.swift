import Foundation
import Observation
import Testing

@testable import ModelKit

/// Relationships on a file and, when a test server is set, on PostgreSQL: each test opens new
/// containers on one store, so what it checks has gone through the store.
@Suite struct RelationshipTests {
    let types: [any PersistentModel.Type] = [Shelf.self, Author.self, Category.self, Post.self, Reader.self]

    func context(_ store: TestStore) throws -> ModelContext {
        ModelContext(try store.container(forTypes: types))
    }

    @Test func schemaIncludesRelatedTypesAndResolvesInverses() throws {
        let schema = Schema([Shelf.self])
        #expect(schema.entities.map(\.name) == ["Shelf", "Book"])
        let books = try #require(schema.entities[0].relationshipsByColumn[1])
        #expect(books.inverse?.name == "shelf")
        if case .inverseForeignKey = books.storage {} else { Issue.record("books should be stored on Book.shelf") }
        let essays = try #require(Schema([Author.self]).entities[0].relationshipsByColumn[1])
        #expect(essays.inverse?.name == "author")  // inferred: the only candidate
        let labels = try #require(Schema([Post.self]).entities[0].relationshipsByColumn[1])
        #expect(labels.inverse?.name == "posts")
        if case .joinTable(let name, let owner, _) = labels.storage {
            #expect(name == "Label_posts" && owner == "target")
        } else { Issue.record("many-to-many should use a join table") }
    }

    @Test(arguments: StoreKind.sharedStores) func toOneIsStoredAndLoadsLazilyInANewContainer(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let writer = try context(store)
        let shelf = Shelf(name: "Fiction")
        writer.insert(Book(title: "Dune", shelf: shelf))
        try writer.save()
        #expect(try store.sql("SELECT title, shelf FROM \"Book\"") == [["Dune", "1"]])

        let reader = try context(store)
        var statements: [String] = []
        reader.statementTrace = { statements.append($0) }
        let book = try reader.fetch(FetchDescriptor<Book>())[0]
        #expect(statements.count == 1)
        #expect(book.shelf?.name == "Fiction")
        #expect(statements.count == 2)
        #expect(book.shelf?.books.map(\.title) == ["Dune"])
        #expect(try reader.fetch(FetchDescriptor<Shelf>())[0] === book.shelf)
    }

    @Test(arguments: StoreKind.sharedStores) func settingOneSideUpdatesTheOtherBeforeAnySave(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let fiction = Shelf(name: "Fiction")
        let poetry = Shelf(name: "Poetry")
        let dune = Book(title: "Dune")
        context.insert(fiction)
        context.insert(poetry)
        context.insert(dune)
        dune.shelf = fiction
        #expect(fiction.books.map(\.title) == ["Dune"])
        let odes = Book(title: "Odes")
        poetry.books.append(odes)
        #expect(odes.shelf === poetry)
        dune.shelf = poetry
        #expect(fiction.books.isEmpty)
        #expect(poetry.books.map(\.title) == ["Odes", "Dune"])
        poetry.books = [odes]
        #expect(dune.shelf == nil)
        try context.save()
        let reader = try self.context(store)  // relationships load through their context, so it stays
        let reloaded = try reader.fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.name)]))
        #expect(reloaded.map { $0.books.map(\.title) } == [[], ["Odes"]])
    }

    /// Setting a to-one changes the inverse to-many in place (no copy of the list per change),
    /// and tells the to-many's observers as its setter would, on both the old and the new owner.
    @Test func settingAToOneTellsTheObserversOfBothToManys() throws {
        let context = ModelContext(try inMemoryContainer(for: Shelf.self))
        let fiction = Shelf(name: "Fiction")
        let poetry = Shelf(name: "Poetry")
        let dune = Book(title: "Dune")
        for model in [fiction, poetry] { context.insert(model) }
        context.insert(dune)
        nonisolated(unsafe) var changed: [String] = []
        withObservationTracking { _ = fiction.books } onChange: { changed.append("Fiction") }
        dune.shelf = fiction
        withObservationTracking { _ = fiction.books } onChange: { changed.append("Fiction") }
        withObservationTracking { _ = poetry.books } onChange: { changed.append("Poetry") }
        dune.shelf = poetry
        #expect(changed == ["Fiction", "Fiction", "Poetry"])
        #expect(fiction.books.isEmpty && poetry.books.map(\.title) == ["Dune"])
        #expect(fiction.hasChanges && poetry.hasChanges)
    }

    /// An observer told of a change reads the models on both sides while the change is under way:
    /// it sees them as they were, and the change then completes. (No engine access to a model's
    /// state or storage spans a call that can reach the same field, which is what lets those
    /// fields skip Swift's exclusivity checks; this exercises the calls that could.)
    @Test func observersReadingBothSidesDuringAChangeSeeThePreviousState() throws {
        let context = ModelContext(try inMemoryContainer(for: Shelf.self))
        let fiction = Shelf(name: "Fiction")
        let poetry = Shelf(name: "Poetry")
        let dune = Book(title: "Dune", shelf: fiction)
        for model in [fiction, poetry] { context.insert(model) }
        context.insert(dune)
        try context.save()
        let probe = ModelProbe { "\(dune.shelf?.name ?? "-") \(fiction.books.map(\.title)) \(poetry.books.map(\.title))" }
        withObservationTracking { _ = dune.shelf } onChange: { probe.look() }
        withObservationTracking { _ = fiction.books } onChange: { probe.look() }
        withObservationTracking { _ = poetry.books } onChange: { probe.look() }
        dune.shelf = poetry
        #expect(probe.seen.count == 3)
        #expect(probe.seen.first == "Fiction [\"Dune\"] []")
        #expect(dune.shelf === poetry && fiction.books.isEmpty && poetry.books.map(\.title) == ["Dune"])
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.name)])).map(\.books.count) == [0, 1])
    }

    /// A to-many not loaded yet loads before a new model joins it through the model's to-one.
    @Test(arguments: StoreKind.sharedStores) func joiningAToManyThatIsNotLoadedLoadsItFirst(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let writer = try context(store)
        let fiction = Shelf(name: "Fiction")
        writer.insert(fiction)
        for title in ["Dune", "Emma"] { writer.insert(Book(title: title, shelf: fiction)) }
        try writer.save()
        let reader = try context(store)
        let shelf = try #require(try reader.fetch(FetchDescriptor<Shelf>()).first)
        let new = Book(title: "Odes")
        reader.insert(new)
        new.shelf = shelf
        #expect(shelf.books.map(\.title).sorted() == ["Dune", "Emma", "Odes"])
        try reader.save()
        #expect(try self.context(store).fetch(FetchDescriptor<Shelf>()).first?.books.count == 3)
    }

    @Test(arguments: StoreKind.sharedStores) func modelsCreatedWithARelationshipLinkTheInverseOnInsert(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let shelf = Shelf(name: "Fiction")
        let book = Book(title: "Dune", shelf: shelf)
        context.insert(book)
        #expect(shelf.books.map(\.title) == ["Dune"])
        try context.save()
        #expect(try self.context(store).fetchCount(FetchDescriptor<Shelf>()) == 1)  // inserted with the book
    }

    @Test(arguments: StoreKind.sharedStores) func insertingAModelInsertsTheNewModelsItReferences(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
        context.insert(shelf)
        try context.save()
        let reader = try self.context(store)
        let books = try reader.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.title) == ["Dune", "Emma"])
        #expect(books.allSatisfy { $0.shelf?.name == "Fiction" })
    }

    @Test(arguments: StoreKind.sharedStores) func cascadeDeletesRelatedModelsInTheSameSave(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
        context.insert(shelf)
        context.insert(Book(title: "Loose"))
        try context.save()
        let reader = try self.context(store)
        reader.delete(try reader.fetch(FetchDescriptor<Shelf>())[0])
        try reader.save()
        #expect(try store.sql("SELECT title FROM \"Book\"") == [["Loose"]])
        #expect(try store.sql("SELECT COUNT(*) FROM \"Shelf\"") == [["0"]])
    }

    @Test(arguments: StoreKind.sharedStores) func nullifyClearsTheInverseInMemoryAndInTheStore(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let root = Category(name: "root")
        let leaf = Category(name: "leaf", parent: root)
        context.insert(leaf)
        try context.save()
        context.delete(root)
        try context.save()
        #expect(leaf.parent == nil)
        #expect(try store.sql("SELECT name, parent FROM \"Category\"") == [["leaf", "NULL"]])
    }

    @Test(arguments: StoreKind.sharedStores) func denyMakesSaveThrowAndLeavesTheStoreUnchanged(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let author = Author(name: "Ada")
        context.insert(Essay(title: "Notes", author: author))
        try context.save()
        let before = try store.sql("SELECT * FROM \"Author\"")
        context.delete(author)
        #expect {
            try context.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.deleteDenied("Author", "essays") = error else { return false }
            return true
        }
        #expect(try store.sql("SELECT * FROM \"Author\"") == before)
        #expect(try store.sql("SELECT COUNT(*) FROM \"Essay\"") == [["1"]])
        context.rollback()
        author.essays = []
        context.delete(author)
        try context.save()
        #expect(try store.sql("SELECT COUNT(*) FROM \"Author\"") == [["0"]])
    }

    @Test(arguments: StoreKind.sharedStores) func noActionLeavesRelatedModelsAloneAndReferencesWithoutInverseAreCleared(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let shelf = Shelf(name: "Fiction")
        let dune = Book(title: "Dune", shelf: shelf)
        let reader = Reader(name: "Lin", bookmark: dune)
        reader.visiting = shelf
        context.insert(reader)
        try context.save()
        context.delete(reader)
        try context.save()
        #expect(try store.sql("SELECT name FROM \"Shelf\"") == [["Fiction"]])  // noAction

        let other = Reader(name: "Kim", bookmark: Book(title: "Emma"))
        other.visiting = shelf
        context.insert(other)
        try context.save()
        context.delete(shelf)
        try context.save()
        #expect(try store.sql("SELECT name, visiting FROM \"Reader\"") == [["Kim", "NULL"]])
    }

    @Test(arguments: StoreKind.sharedStores) func selfReferencingTreesSurviveANewContainer(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let root = Category(name: "root")
        let child = Category(name: "child", parent: root)
        _ = Category(name: "grandchild", parent: child)
        context.insert(root)
        try context.save()
        let reloaded = try self.context(store)
        let top = try reloaded.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.parent == nil }))
        #expect(top.map(\.name) == ["root"])
        #expect(top[0].children.map(\.name) == ["child"])
        #expect(top[0].children[0].children.map(\.name) == ["grandchild"])
        #expect(top[0].children[0].children[0].parent?.parent === top[0])
    }

    @Test(arguments: StoreKind.sharedStores) func manyToManyIsMirroredAndStoredOnce(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let swift = Label(name: "swift")
        let sql = Label(name: "sql")
        let post = Post(title: "ModelKit")
        post.labels = [swift, sql]
        #expect(swift.posts.map(\.title) == ["ModelKit"])  // before any context has them
        context.insert(post)
        let second = Post(title: "Queries")
        context.insert(second)
        sql.posts.append(second)
        #expect(second.labels.map(\.name) == ["sql"])
        try context.save()
        #expect(try store.sql("SELECT COUNT(*) FROM \"Label_posts\"") == [["3"]])
        let reloaded = try self.context(store)
        let labels = try reloaded.fetch(FetchDescriptor<Label>(sortBy: [SortDescriptor(\.name)]))
        #expect(labels.map { $0.posts.map(\.title).sorted() } == [["ModelKit", "Queries"], ["ModelKit"]])
    }

    @Test(arguments: StoreKind.sharedStores) func toManyWithoutInverseAndRequiredToOne(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let dune = Book(title: "Dune")
        let reader = Reader(name: "Lin", bookmark: dune)
        reader.favorites = [dune, Book(title: "Emma")]
        context.insert(reader)
        try context.save()
        #expect(try store.sql("SELECT COUNT(*) FROM \"Reader_favorites\"") == [["2"]])
        let readers = try self.context(store)
        let loaded = try readers.fetch(FetchDescriptor<Reader>())[0]
        #expect(loaded.bookmark.title == "Dune")  // loaded with the reader
        #expect(loaded.favorites.map(\.title) == ["Dune", "Emma"])
        #expect(loaded.favorites[0] === loaded.bookmark)
    }

    @Test(arguments: StoreKind.sharedStores) func relationshipsLoadAfterTheFetchingContextIsGone(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let writer = try context(store)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
        writer.insert(shelf)
        try writer.save()
        let shelves = try self.context(store).fetch(FetchDescriptor<Shelf>())  // the context is released here
        #expect(shelves[0].modelContext == nil)
        #expect(shelves[0].books.map(\.title) == ["Dune", "Emma"])
        #expect(shelves[0].books[0].shelf?.name == "Fiction")
    }

    @Test(arguments: StoreKind.sharedStores) func rollbackRestoresRelationships(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = try context(store)
        let fiction = Shelf(name: "Fiction")
        let poetry = Shelf(name: "Poetry")
        let dune = Book(title: "Dune", shelf: fiction)
        context.insert(dune)
        context.insert(poetry)
        try context.save()
        dune.shelf = poetry
        context.insert(Book(title: "Draft", shelf: fiction))
        #expect(fiction.books.map(\.title) == ["Draft"])
        context.rollback()
        #expect(dune.shelf === fiction)
        #expect(fiction.books.map(\.title) == ["Dune"])
        #expect(poetry.books.isEmpty)
        dune.shelf = poetry  // moved, then deleted: rollback puts it back on its stored shelf
        context.delete(dune)
        context.rollback()
        #expect(dune.shelf === fiction && fiction.books.map(\.title) == ["Dune"] && poetry.books.isEmpty)
    }

    @Test(arguments: StoreKind.sharedStores) func migrationAddsRelationshipColumnsAndTables(kind: StoreKind) throws {
        let store = try TestStore(kind)
        do {
            let context = ModelContext(try store.container(for: Note.self))
            context.insert(Note(text: "kept"))
            try context.save()
        }
        let context = try self.context(store)
        #expect(try context.fetchCount(FetchDescriptor<Reader>()) == 0)
        #expect(try store.tableExists("Reader_favorites"))
        #expect(try store.sql("SELECT text FROM \"Note\"") == [["kept"]])
    }
}

/// Writes to relationships without an inverse that were never read: the write replaces what the
/// relationship held, which loads first, so that it does not load over the write later.
@Suite struct UnreadRelationshipWithoutInverseTests {
    /// A store of `kind` with a reader visiting "v1" whose favorites are "f1" and "f2", and a
    /// context of a container of its own, which has read none of it.
    func reader(_ kind: StoreKind) throws -> (TestStore, ModelContext, Reader) {
        let store = try TestStore(kind)
        let writer = ModelContext(try store.container(for: Shelf.self, Reader.self))
        let reader = Reader(name: "r", bookmark: Book(title: "mark"))
        reader.visiting = Shelf(name: "v1")
        reader.favorites = [Book(title: "f1"), Book(title: "f2")]
        writer.insert(reader)
        try writer.save()
        let context = ModelContext(try store.container(for: Shelf.self, Reader.self))
        return (store, context, try context.fetch(FetchDescriptor<Reader>())[0])
    }

    func stored(in store: TestStore) throws -> (visiting: String?, favorites: [String]) {
        let reader = try ModelContext(try store.container(for: Shelf.self, Reader.self)).fetch(FetchDescriptor<Reader>())[0]
        return (reader.visiting?.name, reader.favorites.map(\.title).sorted())
    }

    @Test(arguments: StoreKind.sharedStores) func aToOneWrittenBeforeItIsReadKeepsTheWrite(kind: StoreKind) throws {
        let (store, context, reader) = try reader(kind)
        reader.visiting = Shelf(name: "v2")
        #expect(reader.visiting?.name == "v2")
        try context.save()
        #expect(try stored(in: store).visiting == "v2")
    }

    @Test(arguments: StoreKind.sharedStores)
    func aToManyThroughAJoinTableWrittenBeforeItIsReadKeepsTheWrite(kind: StoreKind) throws {
        let (store, context, reader) = try reader(kind)
        reader.favorites = [Book(title: "f3")]
        #expect(reader.favorites.map(\.title) == ["f3"])
        try context.save()
        #expect(try stored(in: store).favorites == ["f3"])
    }

    @MainActor @Test(arguments: StoreKind.sharedStores)
    func undoingSuchAWriteBringsBackWhatTheRelationshipHeld(kind: StoreKind) throws {
        let (store, context, reader) = try reader(kind)
        let manager = UndoManager()
        manager.groupsByEvent = false
        context.undoManager = manager
        manager.beginUndoGrouping()
        reader.visiting = nil
        reader.favorites = []
        manager.endUndoGrouping()
        manager.undo()
        #expect(reader.visiting?.name == "v1")
        #expect(reader.favorites.map(\.title).sorted() == ["f1", "f2"])
        try context.save()
        let after = try stored(in: store)
        #expect(after.visiting == "v1")
        #expect(after.favorites == ["f1", "f2"])
    }
}

@Suite struct RelationshipLoadingTests {
    /// A store of `kind` with five shelves of three books, and a post with two labels. The
    /// context returned reads it through a container of its own.
    func context(_ kind: StoreKind) throws -> (TestStore, ModelContext) {
        let store = try TestStore(kind)
        let writer = ModelContext(try store.container(for: Shelf.self, Post.self))
        for index in 0..<5 {
            let shelf = Shelf(name: "shelf \(index)")
            shelf.books = (0..<3).map { Book(title: "book \(index).\($0)") }
            writer.insert(shelf)
        }
        let post = Post(title: "p")
        post.labels = [Label(name: "a"), Label(name: "b")]
        writer.insert(post)
        try writer.save()
        return (store, ModelContext(try store.container(for: Shelf.self, Post.self)))
    }

    @Test(arguments: StoreKind.sharedStores) func withoutPrefetchEachModelLoadsItsOwnRelationship(kind: StoreKind) throws {
        let (store, context) = try context(kind)
        defer { withExtendedLifetime(store) {} }
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let shelves = try context.fetch(FetchDescriptor<Shelf>())
        #expect(shelves.map(\.books.count) == [3, 3, 3, 3, 3])
        #expect(statements.count == 1 + 5)
    }

    @Test(arguments: StoreKind.sharedStores) func prefetchLoadsAToManyForAllResultsInOneQuery(kind: StoreKind) throws {
        let (store, context) = try context(kind)
        defer { withExtendedLifetime(store) {} }
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var descriptor = FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        let shelves = try context.fetch(descriptor)
        #expect(statements.count == 2)
        #expect(shelves.map { $0.books.map(\.title) } == (0..<5).map { index in (0..<3).map { "book \(index).\($0)" } })
        #expect(shelves[0].books[0].shelf === shelves[0])
        #expect(statements.count == 2)
    }

    @Test(arguments: StoreKind.sharedStores)
    func aPrefetchRemembersTheModelsAnOwnerAddedAndTheNextMakesRoomForThem(kind: StoreKind) throws {
        let (store, context) = try context(kind)
        defer { withExtendedLifetime(store) {} }
        let books = try #require(context.container.schema.entity(named: "Shelf")?.relationshipsByColumn[1])
        let book = try #require(context.container.schema.entity(named: "Book"))
        var descriptor = FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.books]
        descriptor.fetchLimit = 4
        _ = try context.fetch(descriptor)
        #expect(books.prefetchedModelsPerOwner.load(ordering: .relaxed) == 3 << 10)

        // Books the context holds already are no models added: nothing to make room for next time.
        let holding = ModelContext(context.container)
        _ = try holding.fetch(FetchDescriptor<Book>())
        _ = try holding.fetch(descriptor)
        #expect(books.prefetchedModelsPerOwner.load(ordering: .relaxed) == 0)
        _ = try ModelContext(context.container).fetch(descriptor)
        #expect(books.prefetchedModelsPerOwner.load(ordering: .relaxed) == 3 << 10)

        // A new context makes room for three books a shelf before it loads them (15 books fit in
        // 24 slots; a table doubling from 8 as they arrive ends with 32), and loads the same, in
        // order, one instance a row.
        let next = ModelContext(context.container)
        descriptor.fetchLimit = nil
        let shelves = try next.fetch(descriptor)
        #expect(next.registered.capacity(of: book.rootIdentifier) == 24)
        #expect(shelves.map { $0.books.map(\.title) } == (0..<5).map { index in (0..<3).map { "book \(index).\($0)" } })
        #expect(Set(shelves.flatMap(\.books).map(ObjectIdentifier.init)).count == 15)
        #expect(shelves.allSatisfy { shelf in shelf.books.allSatisfy { $0.shelf === shelf } })
    }

    @Test func aPrefetchMakesRoomForAtMost64ModelsAnOwnerAnd2To20InAll() {
        #expect(ModelContext.prefetchRoom(owners: 1_000, lastModelsPerOwner: 0) == 0)
        #expect(ModelContext.prefetchRoom(owners: 1_000, lastModelsPerOwner: 10 << 10) == 10_000)
        #expect(ModelContext.prefetchRoom(owners: 1_000, lastModelsPerOwner: 2_560) == 2_500)  // 2.5 an owner
        #expect(ModelContext.prefetchRoom(owners: 1_000, lastModelsPerOwner: 3_000 << 10) == 64_000)
        #expect(ModelContext.prefetchRoom(owners: 10_000, lastModelsPerOwner: 64 << 10) == 640_000)
        #expect(ModelContext.prefetchRoom(owners: 100_000, lastModelsPerOwner: 64 << 10) == 1 << 20)
    }

    @Test(arguments: StoreKind.sharedStores) func prefetchLoadsAToOneForAllResultsInOneQuery(kind: StoreKind) throws {
        let (store, context) = try context(kind)
        defer { withExtendedLifetime(store) {} }
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var descriptor = FetchDescriptor<Book>()
        descriptor.relationshipKeyPathsForPrefetching = [\.shelf]
        let books = try context.fetch(descriptor)
        #expect(Set(books.compactMap { $0.shelf?.name }).count == 5)
        #expect(statements.count == 2)
        // The same row is the same instance: five shelves for fifteen books.
        #expect(Set(books.compactMap { $0.shelf.map(ObjectIdentifier.init) }).count == 5)
    }

    @Test(arguments: StoreKind.sharedStores) func prefetchThroughAJoinTable(kind: StoreKind) throws {
        let (store, context) = try context(kind)
        defer { withExtendedLifetime(store) {} }
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        var descriptor = FetchDescriptor<Post>()
        descriptor.relationshipKeyPathsForPrefetching = [\.labels]
        let posts = try context.fetch(descriptor)
        #expect(posts[0].labels.map(\.name) == ["a", "b"])
        #expect(statements.count == 2)
    }

    @Test(arguments: StoreKind.sharedStores) func sortingByAToOneKeyPathIsCorrect(kind: StoreKind) throws {
        let (store, context) = try context(kind)
        defer { withExtendedLifetime(store) {} }
        let descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.shelf?.name, order: .reverse), SortDescriptor(\.title)])
        let titles = try context.fetch(descriptor).map(\.title)
        #expect(titles.prefix(3) == ["book 4.0", "book 4.1", "book 4.2"])
        #expect(titles.last == "book 0.2")
    }
}

/// Reads models from an Observation `onChange`, which is `@Sendable`: the test runs on one thread,
/// and the observers are called synchronously on it.
private final class ModelProbe: @unchecked Sendable {
    private let read: () -> String
    private(set) var seen: [String] = []

    init(_ read: @escaping () -> String) {
        self.read = read
    }

    func look() { seen.append(read()) }
}

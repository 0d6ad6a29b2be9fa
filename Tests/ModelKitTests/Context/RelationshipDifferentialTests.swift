import Foundation
import Testing

@testable import ModelKit

/// Relationship predicates over random object graphs: SQL and `predicate.evaluate` must agree,
/// on SQLite and on PostgreSQL.
@Suite struct RelationshipDifferentialTests {
    static let kinds = [StoreKind.inMemory] + StoreKind.withPostgres.filter { $0 == .postgres }

    @Test(arguments: kinds) func bookPredicatesThroughTheShelfAgree(kind: StoreKind) throws {
        try RelationshipGraph(kind).bookPredicatesThroughTheShelfAgree()
    }

    @Test(arguments: kinds) func shelfPredicatesOverTheBooksAgree(kind: StoreKind) throws {
        try RelationshipGraph(kind).shelfPredicatesOverTheBooksAgree()
    }

    @Test(arguments: kinds) func categoryPredicatesThroughParentsAndChildrenAgree(kind: StoreKind) throws {
        try RelationshipGraph(kind).categoryPredicatesThroughParentsAndChildrenAgree()
    }

    @Test(arguments: kinds) func predicatesOverAToManyThroughAToOneAgree(kind: StoreKind) throws {
        try RelationshipGraph(kind).predicatesOverAToManyThroughAToOneAgree()
    }
}

/// A to-one to a model whose to-many is stored in a join table (`Post.labels`).
@Model final class Caption {
    var text: String
    @Relationship(deleteRule: .noAction) var post: Post?
    init(text: String, post: Post? = nil) {
        self.text = text
        self.post = post
    }
}

/// A random graph of shelves, books and categories, and the checks run over it.
struct RelationshipGraph {
    let store: TestStore
    let container: ModelContainer
    let context: ModelContext
    static let names = ["a", "ab", "b", "", "a%", "_"]
    var names: [String] { Self.names }

    init(_ kind: StoreKind) throws {
        store = try TestStore(kind)
        container = try store.container(for: Shelf.self, Category.self, Reader.self, Caption.self)
        let writer = ModelContext(container)
        let random = SeededRandom(seed: 8)
        let names = Self.names
        let shelves = (0..<12).map { Shelf(name: random.pick(names) + "\($0 % 3)") }
        for shelf in shelves { writer.insert(shelf) }
        for index in 0..<60 {
            let book = Book(title: random.pick(names) + "\(index % 4)")
            writer.insert(book)
            if random.chance(80) { book.shelf = random.pick(shelves) }
        }
        var categories: [Category] = []
        for index in 0..<40 {
            let category = Category(name: random.pick(names) + "\(index % 2)", parent: categories.isEmpty || random.chance(20) ? nil : random.pick(categories))
            writer.insert(category)
            categories.append(category)
        }
        try writer.save()
        context = ModelContext(container)
    }

    func agree<T: PersistentModel>(_ predicate: Predicate<T>, sortBy: [SortDescriptor<T>]) throws -> Bool {
        let descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy)
        let plan = FetchPlan(descriptor, entity: container.schema.entity(for: T.self)!, dialect: store.kind == .postgres ? .postgres : .sqlite)
        guard plan.untranslated == nil else { return false }
        let viaSQL = try context.fetch(descriptor).map(\.persistentModelID)
        let all = try context.fetch(FetchDescriptor<T>(sortBy: sortBy))
        let viaSwift = try all.filter { try predicate.evaluate($0) }.map(\.persistentModelID)
        return viaSQL == viaSwift
    }

    func bookPredicatesThroughTheShelfAgree() throws {
        let sort = [SortDescriptor(\Book.title), SortDescriptor(\Book.persistentModelID)]
        var checked = 0
        for name in names + ["a0", "b1", "ab2"] {
            #expect(try agree(#Predicate<Book> { $0.shelf?.name == name }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Book> { $0.shelf?.name.starts(with: name) == true }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Book> { $0.shelf.flatMap { $0.name.contains(name) } ?? false }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Book> { $0.shelf != nil && $0.title.starts(with: name) }, sortBy: sort), "\(name)")
            checked += 4
        }
        #expect(checked > 30)
    }

    func shelfPredicatesOverTheBooksAgree() throws {
        let sort = [SortDescriptor(\Shelf.name), SortDescriptor(\Shelf.persistentModelID)]
        for name in names + ["a0", "b1"] {
            #expect(try agree(#Predicate<Shelf> { $0.books.contains { $0.title == name } }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Shelf> { !$0.books.contains { $0.title.contains(name) } }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Shelf> { $0.books.contains { $0.title.starts(with: name) && $0.shelf == nil } }, sortBy: sort))
        }
        for count in 0..<8 {
            #expect(try agree(#Predicate<Shelf> { $0.books.count > count }, sortBy: sort), "\(count)")
            #expect(try agree(#Predicate<Shelf> { $0.books.count == count || $0.books.isEmpty }, sortBy: sort), "\(count)")
        }
    }

    func categoryPredicatesThroughParentsAndChildrenAgree() throws {
        let sort = [SortDescriptor(\Category.name), SortDescriptor(\Category.persistentModelID)]
        for name in names + ["a0", "b1"] {
            #expect(try agree(#Predicate<Category> { $0.parent?.name == name }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Category> { $0.parent?.parent?.name.starts(with: name) == true }, sortBy: sort), "\(name)")
            #expect(try agree(#Predicate<Category> { $0.children.contains { $0.children.contains { $0.name == name } } }, sortBy: sort))
        }
        for count in 0..<4 {
            #expect(try agree(#Predicate<Category> { $0.children.count >= count && $0.parent == nil }, sortBy: sort))
        }
    }

    /// `$0.visiting?.books.contains { … }` and the like: a to-many of the row a to-one holds,
    /// which SQL ties to the to-one's key. Readers visit nothing, an empty shelf, or shelves
    /// with books; captions name no post, a post with no labels, or one with labels.
    func predicatesOverAToManyThroughAToOneAgree() throws {
        let writer = ModelContext(container)
        let random = SeededRandom(seed: 9)
        let books = try writer.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.persistentModelID)]))
        var shelves = try writer.fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.name), SortDescriptor(\.persistentModelID)]))
        let empty = [Shelf(name: "empty"), Shelf(name: "a")]
        for shelf in empty { writer.insert(shelf) }
        shelves += empty
        for index in 0..<30 {
            let reader = Reader(name: random.pick(names) + "\(index % 4)", bookmark: random.pick(books))
            writer.insert(reader)
            reader.visiting = index < 3 ? empty[index % 2] : random.chance(75) ? random.pick(shelves) : nil
        }
        let labels = names.map { Label(name: $0) }
        let posts = (0..<8).map { Post(title: "post \($0)") }
        for post in posts {
            writer.insert(post)
            post.labels = labels.filter { _ in random.chance(30) }
        }
        posts[0].labels = []
        for index in 0..<20 {
            writer.insert(Caption(text: random.pick(names), post: index == 0 ? posts[0] : random.chance(80) ? random.pick(posts) : nil))
        }
        try writer.save()
        #expect(try context.fetchCount(FetchDescriptor<Reader>(predicate: #Predicate { $0.visiting == nil })) > 0)
        #expect(try context.fetchCount(FetchDescriptor<Reader>(predicate: #Predicate { $0.visiting?.books.isEmpty == true })) > 0)

        let readers = [SortDescriptor(\Reader.name), SortDescriptor(\Reader.persistentModelID)]
        var matches = (readers: 0, captions: 0)
        for name in names + ["a0", "b1", "ab2"] {
            matches.readers += try context.fetchCount(FetchDescriptor(predicate: #Predicate<Reader> { r in r.visiting?.books.contains { $0.title.starts(with: name) } == true }))
            matches.captions += try context.fetchCount(FetchDescriptor(predicate: #Predicate<Caption> { c in c.post?.labels.contains { $0.name == name } == true }))
            #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.contains { $0.title == name } == true }, sortBy: readers), "\(name)")
            #expect(try agree(#Predicate<Reader> { r in !(r.visiting?.books.contains { $0.title.starts(with: name) } == true) }, sortBy: readers), "\(name)")
            #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.contains { $0.title.starts(with: name) } == false }, sortBy: readers), "\(name)")
            #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.contains { $0.title.contains(name) } != true }, sortBy: readers), "\(name)")
            #expect(try agree(#Predicate<Reader> { r in r.name.starts(with: name) || r.visiting?.books.contains { $0.title == name } == true }, sortBy: readers), "\(name)")
            #expect(try agree(#Predicate<Reader> { r in r.bookmark.shelf?.books.contains { $0.title == name } == true }, sortBy: readers), "\(name)")
            #expect(try agree(#Predicate<Caption> { c in c.post?.labels.contains { $0.name == name } == true }, sortBy: [SortDescriptor(\Caption.text), SortDescriptor(\Caption.persistentModelID)]), "\(name)")
            #expect(try agree(#Predicate<Caption> { c in !(c.post?.labels.contains { $0.name.starts(with: name) } == true) }, sortBy: [SortDescriptor(\Caption.text), SortDescriptor(\Caption.persistentModelID)]), "\(name)")
            #expect(try agree(#Predicate<Book> { b in b.shelf?.books.contains { $0.title == name } == true }, sortBy: [SortDescriptor(\Book.title), SortDescriptor(\Book.persistentModelID)]), "\(name)")
            #expect(try agree(#Predicate<Category> { c in c.parent?.children.contains { $0.name == name } == true }, sortBy: [SortDescriptor(\Category.name), SortDescriptor(\Category.persistentModelID)]), "\(name)")
        }
        // One shape, whose translation is kept by the constant's value: `== true` is the bare
        // condition, `== false` and `== nil` are not.
        for flag in [true, false, nil, true, nil, false] as [Bool?] {
            for name in ["a0", "b1"] {
                #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.contains { $0.title == name } == flag }, sortBy: readers), "\(String(describing: flag))")
                #expect(try agree(#Predicate<Reader> { r in !(r.visiting?.books.contains { $0.title == name } != flag) }, sortBy: readers), "\(String(describing: flag))")
            }
        }
        // Some rows match and some do not.
        #expect(matches.readers > 0 && matches.readers < 30 * (names.count + 3))
        #expect(matches.captions > 0 && matches.captions < 20 * (names.count + 3))
        // The test refers to the outer row.
        #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.contains { $0.title == r.name } == true }, sortBy: readers))
        #expect(try agree(#Predicate<Reader> { r in !(r.visiting?.books.contains { $0.title < r.name } == true) }, sortBy: readers))
        #expect(try agree(#Predicate<Book> { b in b.shelf?.books.contains { $0.title < b.title } == true }, sortBy: [SortDescriptor(\Book.title), SortDescriptor(\Book.persistentModelID)]))
        for count in 0..<6 {
            let wanted: Int? = count
            #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.count == wanted }, sortBy: readers), "\(count)")
            #expect(try agree(#Predicate<Reader> { r in (r.visiting?.books.count ?? -1) >= count }, sortBy: readers), "\(count)")
            #expect(try agree(#Predicate<Caption> { c in c.post?.labels.count == wanted }, sortBy: [SortDescriptor(\Caption.text), SortDescriptor(\Caption.persistentModelID)]), "\(count)")
        }
        #expect(try agree(#Predicate<Reader> { r in r.visiting?.books.isEmpty == false }, sortBy: readers))
    }
}

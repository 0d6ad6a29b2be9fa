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
        container = try store.container(for: Shelf.self, Category.self)
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
}

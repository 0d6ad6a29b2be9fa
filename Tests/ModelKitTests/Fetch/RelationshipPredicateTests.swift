import Foundation
import Testing

@testable import ModelKit

@Suite struct RelationshipPredicateTests {
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        container = try inMemoryContainer(for: Shelf.self, Category.self, Post.self)
        let writer = ModelContext(container)
        let home = Shelf(name: "Home")
        home.books = [Book(title: "Dune"), Book(title: "Emma"), Book(title: "Odes")]
        let work = Shelf(name: "Work")
        work.books = [Book(title: "SQL")]
        writer.insert(home)
        writer.insert(work)
        writer.insert(Shelf(name: "Empty"))
        writer.insert(Book(title: "Loose"))
        let root = Category(name: "root")
        let mid = Category(name: "mid", parent: root)
        _ = Category(name: "leaf", parent: mid)
        writer.insert(root)
        let post = Post(title: "tagged")
        post.labels = [Label(name: "swift"), Label(name: "db")]
        writer.insert(post)
        writer.insert(Post(title: "bare"))
        try writer.save()
        context = ModelContext(container)
    }

    func sql<T: PersistentModel>(_ predicate: Predicate<T>) throws -> String {
        try PredicateSQL.condition(for: predicate, entity: container.schema.entity(for: T.self)!).text
    }

    /// Fetches through SQL, checks the SQL was complete, and compares with Swift's evaluation.
    func titles(_ predicate: Predicate<Book>) throws -> [String] {
        let descriptor = FetchDescriptor<Book>(predicate: predicate, sortBy: [SortDescriptor(\.title)])
        #expect(FetchPlan(descriptor, entity: container.schema.entity(for: Book.self)!).untranslated == nil)
        let viaSQL = try context.fetch(descriptor).map(\.title)
        let all = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(viaSQL == (try all.filter { try predicate.evaluate($0) }.map(\.title)))
        return viaSQL
    }

    @Test func predicateThroughAToOneRunsAsALookup() throws {
        #expect(try titles(#Predicate { $0.shelf?.name == "Home" }) == ["Dune", "Emma", "Odes"])
        #expect(try titles(#Predicate { $0.shelf == nil }) == ["Loose"])
        #expect(try sql(#Predicate<Book> { $0.shelf?.name == "Home" })
            == #"((CASE WHEN "Book"."shelf" IS NULL THEN NULL ELSE (SELECT "s1"."name" FROM "Shelf" AS "s1" WHERE "s1"."_pk" = "Book"."shelf") END) IS ?)"#)
    }

    @Test func predicateThroughASelfReferenceChain() throws {
        let descriptor = FetchDescriptor<Category>(predicate: #Predicate { $0.parent?.parent?.name == "root" })
        #expect(try context.fetch(descriptor).map(\.name) == ["leaf"])
        #expect(FetchPlan(descriptor, entity: container.schema.entity(for: Category.self)!).untranslated == nil)
    }

    /// A test of the targets alone is a subquery run once (`IN`); one that refers to the outer
    /// row is `EXISTS`, run per row.
    @Test func toManyContainsWhereRunsAsInOrExists() throws {
        let descriptor = FetchDescriptor<Shelf>(
            predicate: #Predicate { $0.books.contains { $0.title.starts(with: "E") } }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(descriptor).map(\.name) == ["Home"])
        #expect(try sql(#Predicate<Shelf> { $0.books.contains { $0.title == "SQL" } })
            == #"("Shelf"."_pk" IS NOT NULL AND "Shelf"."_pk" IN (SELECT "s1"."shelf" FROM "Book" AS "s1" WHERE "s1"."shelf" IS NOT NULL AND ("s1"."title" IS ?)))"#)
        #expect(try sql(#Predicate<Shelf> { s in s.books.contains { $0.title == s.name } })
            == #"EXISTS (SELECT 1 FROM "Book" AS "s1" WHERE "s1"."shelf" = "Shelf"."_pk" AND ("s1"."title" IS "Shelf"."name"))"#)
        #expect(try sql(#Predicate<Book> { b in b.shelf?.books.contains { $0.title == "SQL" } == true })
            == #"("Book"."shelf" IS NOT NULL AND ("Book"."shelf" IS NOT NULL AND "Book"."shelf" IN (SELECT "s2"."shelf" FROM "Book" AS "s2" WHERE "s2"."shelf" IS NOT NULL AND ("s2"."title" IS ?))))"#)
        // `== false` keeps nil apart from false.
        #expect(try sql(#Predicate<Book> { b in b.shelf?.books.contains { $0.title == "SQL" } == false })
            == #"((CASE WHEN "Book"."shelf" IS NULL THEN NULL ELSE ("Book"."shelf" IS NOT NULL AND "Book"."shelf" IN (SELECT "s2"."shelf" FROM "Book" AS "s2" WHERE "s2"."shelf" IS NOT NULL AND ("s2"."title" IS ?))) END) IS ?)"#)
    }

    @Test func toManyCountAndIsEmpty() throws {
        let many = FetchDescriptor<Shelf>(predicate: #Predicate { $0.books.count >= 1 }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(many).map(\.name) == ["Home", "Work"])
        let empty = FetchDescriptor<Shelf>(predicate: #Predicate { $0.books.isEmpty })
        #expect(try context.fetch(empty).map(\.name) == ["Empty"])
        #expect(try context.fetchCount(many) == 2)
        #expect(try sql(#Predicate<Shelf> { $0.books.count > 2 })
            == #"((SELECT COUNT(*) FROM "Book" AS "s1" WHERE "s1"."shelf" = "Shelf"."_pk") > ?)"#)
    }

    @Test func manyToManyContainsWhereGoesThroughTheJoinTable() throws {
        let descriptor = FetchDescriptor<Post>(predicate: #Predicate { $0.labels.contains { $0.name == "db" } })
        #expect(try context.fetch(descriptor).map(\.title) == ["tagged"])
        let reverse = FetchDescriptor<Label>(predicate: #Predicate { $0.posts.contains { $0.title == "tagged" } }, sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetch(reverse).map(\.name) == ["db", "swift"])
    }
}

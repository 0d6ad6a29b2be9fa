import Foundation
import ModelKit
import Testing

/// `delete(model:where:)` follows delete rules as single deletes do, in one transaction.
@Suite struct BatchDeleteRuleTests {
    @Test func cascadeDeletesRelatedRowsAndClearsReferencesWithoutInverse() throws {
        let container = try inMemoryContainer(for: Shelf.self, Book.self, Reader.self)
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        let dune = Book(title: "Dune", shelf: shelf)
        let kept = Book(title: "Kept")
        let reader = Reader(name: "Ada", bookmark: kept)
        reader.favorites = [dune, kept]
        reader.visiting = shelf
        context.insert(reader)
        context.insert(dune)
        try context.save()

        try context.delete(model: Shelf.self)
        #expect(dune.isDeleted)
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Book>()).map(\.title) == ["Kept"])
        let stored = try #require(try fresh.fetch(FetchDescriptor<Reader>()).first)
        #expect(stored.favorites.map(\.title) == ["Kept"])
        #expect(stored.visiting == nil)
    }

    @Test func denyThrowsAndDeletesNothing() throws {
        let container = try inMemoryContainer(for: Author.self, Essay.self)
        let context = ModelContext(container)
        context.insert(Essay(title: "On Rules", author: Author(name: "Ada")))
        context.insert(Author(name: "Idle"))
        try context.save()
        #expect {
            try context.delete(model: Author.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.deleteDenied(let entity, let relationship) = error else { return false }
            return entity == "Author" && relationship == "essays"
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Author>()) == 2)
        try context.delete(model: Author.self, where: #Predicate { $0.essays.isEmpty })
        #expect(try ModelContext(container).fetch(FetchDescriptor<Author>()).map(\.name) == ["Ada"])
    }

    @Test func nullifyClearsTheInverseAndEveryChildStillReads() throws {
        let container = try inMemoryContainer(for: Category.self)
        let context = ModelContext(container)
        let root = Category(name: "root")
        let child = Category(name: "child", parent: root)
        context.insert(child)
        try context.save()
        try context.delete(model: Category.self, where: #Predicate { $0.name == "root" })
        #expect(child.parent == nil, "the registered child is refreshed")
        let stored = try ModelContext(container).fetch(FetchDescriptor<Category>())
        #expect(stored.map(\.name) == ["child"])
        #expect(stored.first?.parent == nil)
    }

    @Test func manyToManyLinksGoWithTheRows() throws {
        let container = try inMemoryContainer(for: Post.self, Label.self)
        let context = ModelContext(container)
        let post = Post(title: "Hello")
        post.labels = [Label(name: "a"), Label(name: "b")]
        context.insert(post)
        try context.save()
        try context.delete(model: Label.self, where: #Predicate { $0.name == "a" })
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Post>()).first)
        #expect(stored.labels.map(\.name) == ["b"])
    }

    @Test func aRequiredToOneBlocksTheBatchDelete() throws {
        let container = try inMemoryContainer(for: Crate.self, Bottle.self)
        let context = ModelContext(container)
        context.insert(Bottle(name: "merlot", crate: Crate(label: "red")))
        try context.save()
        #expect(throws: ModelKitError.self) { try context.delete(model: Crate.self) }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Crate>()) == 1)
    }
}

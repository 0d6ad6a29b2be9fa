import Foundation
import ModelKit
import Testing

/// A crate's bottles must each have a crate: `.nullify` (the default) cannot clear that.
@Model final class Crate {
    var label: String
    @Relationship(inverse: \Bottle.crate) var bottles: [Bottle] = []
    init(label: String) { self.label = label }
}

@Model final class Bottle {
    var name: String
    var crate: Crate
    init(name: String, crate: Crate) {
        self.name = name
        self.crate = crate
    }
}

/// Deleting what a required to-one points at fails with a typed error, and writes nothing.
@Suite struct RequiredRelationshipTests {
    @Test func nullifyingARequiredToOneThrowsAndWritesNothing() throws {
        let container = try inMemoryContainer(for: Crate.self, Bottle.self)
        let context = ModelContext(container)
        let crate = Crate(label: "red")
        context.insert(Bottle(name: "merlot", crate: crate))
        try context.save()
        context.delete(crate)
        #expect {
            try context.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.requiredRelationshipWouldBeNil(let entity, let relationship) = error else { return false }
            return entity == "Bottle" && relationship == "crate"
        }
        let stored = ModelContext(container)
        #expect(try stored.fetchCount(FetchDescriptor<Crate>()) == 1)
        #expect(try stored.fetch(FetchDescriptor<Bottle>()).map(\.crate.label) == ["red"])
    }

    @Test func deletingBothSidesInOneSaveIsFine() throws {
        let context = ModelContext(try inMemoryContainer(for: Crate.self, Bottle.self))
        let crate = Crate(label: "red")
        let bottle = Bottle(name: "merlot", crate: crate)
        context.insert(bottle)
        try context.save()
        context.delete(bottle)
        context.delete(crate)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Bottle>()) == 0)
    }

    @Test func deletingTheTargetOfARequiredToOneWithoutInverseThrows() throws {
        let container = try inMemoryContainer(for: Reader.self, Book.self, Shelf.self)
        let context = ModelContext(container)
        let book = Book(title: "Dune")
        context.insert(Reader(name: "Ada", bookmark: book))
        try context.save()
        context.delete(book)
        #expect(throws: ModelKitError.self) { try context.save() }
        let stored = try ModelContext(container).fetch(FetchDescriptor<Reader>())
        #expect(stored.map(\.bookmark.title) == ["Dune"])
    }
}

import Foundation
import SwiftData
import Testing

// The README's ModelKit tour, with an in-memory store: if this stops compiling, the README is wrong.

@Model
final class Note {
    var title: String
    var isDone = false
    @Attribute(.unique) var code: String
    @Transient var isSelected = false

    init(title: String, code: String) {
        self.title = title
        self.code = code
    }
}

@Test func readmeModelKitTourWorks() throws {
    let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    context.insert(Note(title: "Write README", code: "T-1"))
    try context.save()

    var descriptor = FetchDescriptor<Note>(predicate: #Predicate { !$0.isDone }, sortBy: [SortDescriptor(\.title)])
    descriptor.fetchLimit = 10
    let open = try context.fetch(descriptor)
    #expect(open.map(\.title) == ["Write README"])
}

// The relationships tour of the DocC article *Relationships*.

@Model final class Shelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
    init(name: String) { self.name = name }
}

@Model final class Book {
    var title: String
    var shelf: Shelf?
    init(title: String, shelf: Shelf? = nil) { self.title = title; self.shelf = shelf }
}

@Test func readmeRelationshipsTourWorks() throws {
    let context = ModelContext(try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
    let shelf = Shelf(name: "Fiction")
    let dune = Book(title: "Dune", shelf: shelf)
    context.insert(dune)                       // inserts the shelf too
    #expect(shelf.books == [dune])             // the inverse is kept in memory, before any save
    try context.save()
    var descriptor = FetchDescriptor<Shelf>(predicate: #Predicate { $0.books.contains { $0.title == "Dune" } })
    descriptor.relationshipKeyPathsForPrefetching = [\.books]   // one query for every shelf's books
    #expect(try context.fetch(descriptor).map(\.name) == ["Fiction"])
}

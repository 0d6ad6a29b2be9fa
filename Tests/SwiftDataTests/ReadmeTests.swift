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

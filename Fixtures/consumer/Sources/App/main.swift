import AppState
import Foundation
import SwiftData

@Model
final class Note {
    var title: String
    var createdAt = Date.now
    init(title: String) { self.title = title }
}

extension Application {
    var notesContainer: Dependency<ModelContainer> {
        dependency(try! ModelContainer(for: Note.self, configurations: .init(isStoredInMemoryOnly: true)))
    }
    var notes: ModelState<Note> { modelState(container: \.notesContainer) }
}

@MainActor
func main() throws {
    let notes = Application.modelState(\.notes)
    try notes.strict.insert(Note(title: "Hello from a versioned dependency"))
    print(notes.models.map(\.title).joined(separator: "\n"))
}

try MainActor.assumeIsolated { try main() }

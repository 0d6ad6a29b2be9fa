import AppState
import Foundation
import SwiftData
import Testing

// The DocC article "Models through the container: ModelState", verbatim: if this stops
// compiling or passing, the article is wrong.

@Model
final class Chore {
    var title: String
    var isDone: Bool
    init(title: String, isDone: Bool = false) {
        self.title = title
        self.isDone = isDone
    }
}

private func makeChoreContainer() -> ModelContainer {
    do {
        return try ModelContainer(for: Chore.self)
    } catch {
        fatalError("Failed to create the ModelContainer: \(error)")
    }
}

extension Application {
    var choreContainer: Dependency<ModelContainer> { modelContainer(makeChoreContainer()) }
    var chores: ModelState<Chore> {
        modelState(container: \.choreContainer, fetchDescriptor: FetchDescriptor<Chore>(sortBy: [SortDescriptor(\.title)]), id: "chores")
    }
}

@MainActor
final class ChoreListViewModel {
    @ModelState(\.chores) var chores: [Chore]

    func add(title: String) { $chores.insert(Chore(title: title)) }
    func finish(_ chore: Chore) {
        chore.isDone = true
        $chores.save()
    }
    func remove(_ chore: Chore) { $chores.delete(chore) }
    func clear() { $chores.deleteAll() }
}

@MainActor
func importChore(_ title: String) throws {
    let state = Application.modelState(\.chores)
    try state.strict.insert(Chore(title: title))
}

@Test @MainActor func addingAChoreStoresIt() throws {
    let container = try ModelContainer(for: Chore.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    Application.withIsolatedScope {
        let token = Application.override(\.choreContainer, with: container)
        defer { withExtendedLifetime(token) {} }
        ChoreListViewModel().add(title: "Water the plants")
        #expect(Application.modelState(\.chores).models.map(\.title) == ["Water the plants"])
    }
}

@Test @MainActor func theArticlesViewModelFinishesRemovesAndClears() throws {
    let container = try ModelContainer(for: Chore.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    try Application.withIsolatedScope {
        let token = Application.override(\.choreContainer, with: container)
        defer { withExtendedLifetime(token) {} }
        let viewModel = ChoreListViewModel()
        viewModel.add(title: "b")
        try importChore("a")
        #expect(viewModel.chores.map(\.title) == ["a", "b"])
        viewModel.finish(viewModel.chores[0])
        #expect(viewModel.chores.map(\.isDone) == [true, false])
        viewModel.remove(viewModel.chores[1])
        #expect(viewModel.chores.map(\.title) == ["a"])
        viewModel.clear()
        #expect(viewModel.chores.isEmpty)
    }
}

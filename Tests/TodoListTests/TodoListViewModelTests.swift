import AppState
import Foundation
import Observation
import SwiftData
import Testing
import TodoList

/// Drives the guide's view model against an in-memory container, in an isolated application.
@MainActor
@Suite struct TodoListViewModelTests {
    func withViewModel(_ body: (TodoListViewModel) throws -> Void) throws {
        let container = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try Application.withIsolatedScope {
            let token = Application.override(\.modelContainer, with: container)
            defer { withExtendedLifetime(token) {} }
            try body(TodoListViewModel())
        }
    }

    @Test func addTogglesRemoveAndClearAllWorkEndToEnd() throws {
        try withViewModel { viewModel in
            viewModel.add(title: "Walk dog")
            viewModel.add(title: "Buy milk")
            #expect(viewModel.todoItems.map(\.title) == ["Buy milk", "Walk dog"])
            #expect(!Application.modelContext(\.modelContainer).hasChanges)

            let milk = viewModel.todoItems[0]
            viewModel.toggle(milk)
            #expect(viewModel.todoItems.map(\.isComplete) == [true, false])
            #expect(!Application.modelContext(\.modelContainer).hasChanges)

            viewModel.remove(milk)
            #expect(viewModel.todoItems.map(\.title) == ["Walk dog"])

            viewModel.add(title: "Call mum")
            viewModel.clearAll()
            #expect(viewModel.todoItems.isEmpty)
            let stored = try ModelContext(Application.dependency(\.modelContainer)).fetchCount(FetchDescriptor<TodoItem>())
            #expect(stored == 0)
        }
    }

    @Test func containerDependencyIsTheSharedContainer() throws {
        try withViewModel { _ in
            let container = Application.dependency(\.modelContainer)
            #expect(Application.modelContext(\.modelContainer) === container.mainContext)
            #expect(Application.modelState(\.todoItems).context === container.mainContext)
        }
    }
}

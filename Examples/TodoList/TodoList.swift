// The ModelState guide's end-to-end example, as written, without the SwiftUI import and the
// `ObservableObject` conformance (Combine does not exist on Linux).

import AppState
import SwiftData

// 1. Define the model.
@Model
public final class TodoItem {
    public var title: String
    public var isComplete: Bool

    public init(title: String, isComplete: Bool = false) {
        self.title = title
        self.isComplete = isComplete
    }
}

// 2. Register the shared container and a ModelState on Application.
private func makeModelContainer() -> ModelContainer {
    do {
        return try ModelContainer(for: TodoItem.self)
    } catch {
        fatalError("Failed to create ModelContainer: \(error)")
    }
}

extension Application {
    public var modelContainer: Dependency<ModelContainer> {
        modelContainer(makeModelContainer())
    }

    public var todoItems: ModelState<TodoItem> {
        modelState(
            container: \.modelContainer,
            fetchDescriptor: FetchDescriptor<TodoItem>(
                sortBy: [SortDescriptor(\.title)]
            ),
            id: "todoItems"
        )
    }
}

// 3. Use @ModelState from a view model.
@MainActor
public final class TodoListViewModel {
    @ModelState(\.todoItems) public var todoItems: [TodoItem]

    public init() {}

    public func add(title: String) {
        $todoItems.insert(TodoItem(title: title))
    }

    public func toggle(_ item: TodoItem) {
        item.isComplete.toggle()
        $todoItems.save()
    }

    public func remove(_ item: TodoItem) {
        $todoItems.delete(item)
    }

    public func clearAll() {
        $todoItems.deleteAll()
    }
}

#if canImport(SwiftData)
import SwiftData

/// The live models of a ``Application/ModelState``, with its mutators on the projected value:
///
/// ```swift
/// @MainActor final class TodoListViewModel {
///     @ModelState(\.todoItems) var todoItems: [TodoItem]
///     func add(title: String) { $todoItems.insert(TodoItem(title: title)) }
/// }
/// ```
@propertyWrapper
public struct ModelState<Model: PersistentModel> {
    private let keyPath: KeyPath<Application, Application.ModelState<Model>>

    /// Wraps the model state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.ModelState<Model>>) {
        self.keyPath = keyPath
    }

    /// The models, fetched on every read.
    @MainActor public var wrappedValue: [Model] { Application.modelState(keyPath).models }

    /// The model state, for `insert`, `delete`, `save`, `deleteAll` and `strict`.
    @MainActor public var projectedValue: Application.ModelState<Model> { Application.modelState(keyPath) }
}
#endif

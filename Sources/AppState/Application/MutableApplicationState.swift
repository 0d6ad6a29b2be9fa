/// A piece of application state with a readable and writable value: ``Application/State``,
/// ``Application/StoredState``, ``Application/FileState`` and ``Application/Slice``.
/// ``AppState`` wraps any of them.
public protocol MutableApplicationState {
    /// The type of the state's value.
    associatedtype Value

    /// The current value. Reading it inside `withObservationTracking` tracks this state only.
    @MainActor var value: Value { get nonmutating set }
}

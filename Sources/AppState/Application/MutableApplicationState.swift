/// A piece of application state with a readable and writable value: ``Application/State``,
/// ``Application/StoredState``, ``Application/FileState``, ``Application/Slice`` and their kin.
/// ``AppState`` wraps any of them, and ``Application/reset(_:)`` resets any of them.
public protocol MutableApplicationState {
    /// The type of the state's value.
    associatedtype Value

    /// An emoji that stands for this kind of state in log messages.
    static var emoji: Character { get }

    /// The current value. Reading it inside `withObservationTracking` tracks this state only.
    @MainActor var value: Value { get set }

    /// Sets the state back to its initial value.
    @MainActor mutating func reset()
}

extension MutableApplicationState {
    /// The emoji of a state kind that names none.
    public static var emoji: Character { "❓" }
}

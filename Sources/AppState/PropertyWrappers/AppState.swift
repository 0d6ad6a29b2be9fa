#if canImport(SwiftUI)
import SwiftUI
#endif

/// Reads and writes a state of the current application:
///
/// ```swift
/// @MainActor final class CounterModel {
///     @AppState(\.count) var count: Int
///     func increment() { count += 1 }
/// }
/// ```
///
/// Works with any ``MutableApplicationState``. Reads are tracked by Swift Observation. As in
/// AppState, `$count` is a SwiftUI `Binding` where SwiftUI exists, and the state itself elsewhere.
@propertyWrapper
public struct AppState<ApplicationState: MutableApplicationState> {
    private let keyPath: KeyPath<Application, ApplicationState>

    /// Wraps the state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, ApplicationState>) {
        self.keyPath = keyPath
    }

    /// The state's current value.
    @MainActor public var wrappedValue: ApplicationState.Value {
        get { Application.state(keyPath).value }
        nonmutating set {
            var state = Application.state(keyPath)
            state.value = newValue
        }
    }

    #if canImport(SwiftUI)
    /// A binding to the state's value, for SwiftUI controls.
    @MainActor public var projectedValue: Binding<ApplicationState.Value> {
        let keyPath = Captured(value: keyPath)
        return Binding(
            get: { @MainActor in Application.state(keyPath.value).value },
            set: { @MainActor newValue in
                var state = Application.state(keyPath.value)
                state.value = newValue
            })
    }
    #else
    /// The state itself, for `reset()` and the like.
    @MainActor public var projectedValue: ApplicationState { Application.state(keyPath) }
    #endif
}

/// Reads and writes a ``Application/StoredState`` of the current application.
@propertyWrapper
public struct StoredState<Value: Codable & Sendable> {
    private let keyPath: KeyPath<Application, Application.StoredState<Value>>

    /// Wraps the stored state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.StoredState<Value>>) {
        self.keyPath = keyPath
    }

    /// The state's current value.
    @MainActor public var wrappedValue: Value {
        get { Application.storedState(keyPath).value }
        nonmutating set { Application.storedState(keyPath).value = newValue }
    }

    #if canImport(SwiftUI)
    /// A binding to the state's value, for SwiftUI controls.
    @MainActor public var projectedValue: Binding<Value> {
        let keyPath = Captured(value: keyPath)
        return Binding(
            get: { @MainActor in Application.storedState(keyPath.value).value },
            set: { @MainActor newValue in Application.storedState(keyPath.value).value = newValue })
    }
    #else
    /// The stored state itself, for `reset()`.
    @MainActor public var projectedValue: Application.StoredState<Value> { Application.storedState(keyPath) }
    #endif
}

/// Reads and writes a ``Application/FileState`` of the current application.
@propertyWrapper
public struct FileState<Value: Codable & Sendable> {
    private let keyPath: KeyPath<Application, Application.FileState<Value>>

    /// Wraps the file state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.FileState<Value>>) {
        self.keyPath = keyPath
    }

    /// The state's current value.
    @MainActor public var wrappedValue: Value {
        get { Application.fileState(keyPath).value }
        nonmutating set { Application.fileState(keyPath).value = newValue }
    }

    #if canImport(SwiftUI)
    /// A binding to the state's value, for SwiftUI controls.
    @MainActor public var projectedValue: Binding<Value> {
        let keyPath = Captured(value: keyPath)
        return Binding(
            get: { @MainActor in Application.fileState(keyPath.value).value },
            set: { @MainActor newValue in Application.fileState(keyPath.value).value = newValue })
    }
    #else
    /// The file state itself, for `reset()`.
    @MainActor public var projectedValue: Application.FileState<Value> { Application.fileState(keyPath) }
    #endif
}

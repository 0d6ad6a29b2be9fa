#if canImport(SwiftUI)
import SwiftUI
#endif

/// Reads and writes part of a state: `@Slice(\.user, \.name) var name: String`.
@propertyWrapper
public struct Slice<SlicedState: MutableApplicationState, Value> {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let valueKeyPath: WritableKeyPath<SlicedState.Value, Value>

    /// Wraps the part `valueKeyPath` of the state at `stateKeyPath`.
    public init(
        _ stateKeyPath: KeyPath<Application, SlicedState>,
        _ valueKeyPath: WritableKeyPath<SlicedState.Value, Value>
    ) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The part of the state's value.
    @MainActor public var wrappedValue: Value {
        get { Application.slice(stateKeyPath, valueKeyPath).value }
        nonmutating set { Application.slice(stateKeyPath, valueKeyPath).value = newValue }
    }

    #if canImport(SwiftUI)
    /// A binding to the part, for SwiftUI controls.
    @MainActor public var projectedValue: Binding<Value> {
        let keyPaths = Captured(value: (stateKeyPath, valueKeyPath))
        return Binding(
            get: { @MainActor in Application.slice(keyPaths.value.0, keyPaths.value.1).value },
            set: { @MainActor newValue in Application.slice(keyPaths.value.0, keyPaths.value.1).value = newValue })
    }
    #endif
}

/// Reads and writes part of an optional state: nil while the state is nil.
///
/// ```swift
/// @OptionalSlice(\.maybeUser, \.name) var name          // String?
/// @OptionalSlice(\.maybeUser, \.nickname) var nickname  // String?, for `nickname: String?`
/// ```
///
/// For an optional part, the wrapped value is the part itself, so assigning nil clears it; for
/// a part that is not optional, assigning nil does nothing. Writes while the state is nil do
/// nothing either.
@propertyWrapper
public struct OptionalSlice<SlicedState: MutableApplicationState, Wrapped, Value>
where SlicedState.Value == Wrapped? {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let valueKeyPath: WritableKeyPath<Wrapped, Value>?
    private let optionalValueKeyPath: WritableKeyPath<Wrapped, Value?>?

    /// Wraps the part `valueKeyPath` of the optional state at `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState>, _ valueKeyPath: WritableKeyPath<Wrapped, Value>) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
        self.optionalValueKeyPath = nil
    }

    /// Wraps the optional part `optionalValueKeyPath` of the optional state at `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState>, _ optionalValueKeyPath: WritableKeyPath<Wrapped, Value?>) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = nil
        self.optionalValueKeyPath = optionalValueKeyPath
    }

    /// The part of the state's value, or nil when the state (or an optional part) is nil.
    @MainActor public var wrappedValue: Value? {
        get {
            if let valueKeyPath { return Application.slice(stateKeyPath, valueKeyPath).value }
            return Application.slice(stateKeyPath, optionalValueKeyPath!).value
        }
        nonmutating set {
            if let valueKeyPath {
                Application.slice(stateKeyPath, valueKeyPath).value = newValue
            } else {
                Application.slice(stateKeyPath, optionalValueKeyPath!).value = newValue
            }
        }
    }
}

/// Reads part of a state: `@Constant(\.user, \.id) var userID: UUID`.
@propertyWrapper
public struct Constant<SlicedState: MutableApplicationState, Value> {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let valueKeyPath: KeyPath<SlicedState.Value, Value>

    /// Wraps the part `valueKeyPath` of the state at `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState>, _ valueKeyPath: KeyPath<SlicedState.Value, Value>) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The part of the state's value.
    @MainActor public var wrappedValue: Value { Application.constant(stateKeyPath, valueKeyPath).value }
}

/// Reads part of an optional state: nil while the state is nil.
/// `@OptionalConstant(\.maybeUser, \.name) var name: String?`; for an optional part
/// (`nickname: String?`), the wrapped value is the part itself, `String?`.
@propertyWrapper
public struct OptionalConstant<SlicedState: MutableApplicationState, Wrapped, Value>
where SlicedState.Value == Wrapped? {
    private let stateKeyPath: KeyPath<Application, SlicedState>
    private let valueKeyPath: KeyPath<Wrapped, Value>?
    private let optionalValueKeyPath: KeyPath<Wrapped, Value?>?

    /// Wraps the part `valueKeyPath` of the optional state at `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState>, _ valueKeyPath: KeyPath<Wrapped, Value>) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = valueKeyPath
        self.optionalValueKeyPath = nil
    }

    /// Wraps the optional part `optionalValueKeyPath` of the optional state at `stateKeyPath`.
    public init(_ stateKeyPath: KeyPath<Application, SlicedState>, _ optionalValueKeyPath: KeyPath<Wrapped, Value?>) {
        self.stateKeyPath = stateKeyPath
        self.valueKeyPath = nil
        self.optionalValueKeyPath = optionalValueKeyPath
    }

    /// The part of the state's value, or nil when the state (or an optional part) is nil.
    @MainActor public var wrappedValue: Value? {
        if let valueKeyPath { return Application.constant(stateKeyPath, valueKeyPath).value }
        return Application.constant(stateKeyPath, optionalValueKeyPath!).value
    }
}

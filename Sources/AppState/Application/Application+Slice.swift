extension Application {
    /// A writable part of a state's value, reached through a key path.
    ///
    /// ```swift
    /// let name = Application.slice(\.user, \.name)
    /// name.value = "Ada"   // writes Application.state(\.user).value.name
    /// ```
    public struct Slice<SlicedState: MutableApplicationState, SliceValue>: MutableApplicationState {
        let state: SlicedState
        let keyPath: WritableKeyPath<SlicedState.Value, SliceValue>

        /// The part of the state's value. Setting it writes the whole value back to the state.
        @MainActor public var value: SliceValue {
            get { state.value[keyPath: keyPath] }
            nonmutating set { state.value[keyPath: keyPath] = newValue }
        }
    }

    /// A part of an optional state's value: nil while the state is nil. Setting it while the state
    /// is nil does nothing; setting it to nil does nothing either, since the part is not optional.
    public struct OptionalSlice<SlicedState: MutableApplicationState, Wrapped, SliceValue>: MutableApplicationState
    where SlicedState.Value == Wrapped? {
        let state: SlicedState
        let keyPath: WritableKeyPath<Wrapped, SliceValue>

        /// The part of the state's value, or nil when the state is nil.
        @MainActor public var value: SliceValue? {
            get { state.value?[keyPath: keyPath] }
            nonmutating set {
                guard let newValue, state.value != nil else { return }
                state.value?[keyPath: keyPath] = newValue
            }
        }
    }

    /// A read-only part of a state's value.
    public struct Constant<SlicedState: MutableApplicationState, SliceValue> {
        let state: SlicedState
        let keyPath: KeyPath<SlicedState.Value, SliceValue>

        /// The part of the state's value.
        @MainActor public var value: SliceValue { state.value[keyPath: keyPath] }
    }

    /// Returns a writable slice of a state of the current application.
    @MainActor
    public static func slice<S: MutableApplicationState, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: WritableKeyPath<S.Value, Value>
    ) -> Slice<S, Value> {
        Slice(state: current[keyPath: stateKeyPath], keyPath: valueKeyPath)
    }

    /// Returns a slice of an optional state of the current application.
    @MainActor
    public static func slice<S: MutableApplicationState, Wrapped, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: WritableKeyPath<Wrapped, Value>
    ) -> OptionalSlice<S, Wrapped, Value> where S.Value == Wrapped? {
        OptionalSlice(state: current[keyPath: stateKeyPath], keyPath: valueKeyPath)
    }

    /// Returns a read-only slice of a state of the current application.
    @MainActor
    public static func constant<S: MutableApplicationState, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: KeyPath<S.Value, Value>
    ) -> Constant<S, Value> {
        Constant(state: current[keyPath: stateKeyPath], keyPath: valueKeyPath)
    }

    /// Returns a part of a dependency, read through a key path.
    public static func dependencySlice<Value: Sendable, SliceValue>(
        _ dependencyKeyPath: KeyPath<Application, Dependency<Value>>,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) -> SliceValue {
        dependency(dependencyKeyPath)[keyPath: valueKeyPath]
    }
}

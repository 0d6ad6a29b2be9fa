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
            nonmutating set {
                var state = state
                state.value[keyPath: keyPath] = newValue
            }
        }

        /// Resets the whole state this slice is part of.
        @MainActor public func reset() {
            var state = state
            state.reset()
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
                var state = state
                state.value?[keyPath: keyPath] = newValue
            }
        }

        /// Resets the whole state this slice is part of.
        @MainActor public func reset() {
            var state = state
            state.reset()
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

    /// Returns a read-only slice of a state of the current application, for a key path that
    /// cannot write (a computed property, say).
    @MainActor
    public static func slice<S: MutableApplicationState, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: KeyPath<S.Value, Value>
    ) -> Constant<S, Value> {
        constant(stateKeyPath, valueKeyPath)
    }

    /// Returns a read-only part of an optional state of the current application: nil while the
    /// state is nil.
    @MainActor
    public static func constant<S: MutableApplicationState, Wrapped, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: KeyPath<Wrapped, Value>
    ) -> OptionalConstant<S, Wrapped, Value> where S.Value == Wrapped? {
        OptionalConstant(state: current[keyPath: stateKeyPath], keyPath: valueKeyPath)
    }

    /// Returns a read-only optional part of an optional state of the current application: nil
    /// while the state or the part is nil.
    @MainActor
    public static func constant<S: MutableApplicationState, Wrapped, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: KeyPath<Wrapped, Value?>
    ) -> OptionalConstant<S, Wrapped, Value> where S.Value == Wrapped? {
        OptionalConstant(state: current[keyPath: stateKeyPath]) { $0[keyPath: valueKeyPath] }
    }

    /// Returns a writable optional part of an optional state of the current application, as in
    /// AppState: `Application.slice(\.maybeUser, \.nickname)` for `nickname: String?`.
    @MainActor
    public static func slice<S: MutableApplicationState, Wrapped, Value>(
        _ stateKeyPath: KeyPath<Application, S>,
        _ valueKeyPath: WritableKeyPath<Wrapped, Value?>
    ) -> OptionalSliceOptionalValue<S, Wrapped, Value> where S.Value == Wrapped? {
        OptionalSliceOptionalValue(state: current[keyPath: stateKeyPath], keyPath: valueKeyPath)
    }

    /// A read-only part of an optional state's value: nil while the state is nil.
    public struct OptionalConstant<SlicedState: MutableApplicationState, Wrapped, SliceValue>
    where SlicedState.Value == Wrapped? {
        let state: SlicedState
        let read: (Wrapped) -> SliceValue?

        init(state: SlicedState, keyPath: KeyPath<Wrapped, SliceValue>) {
            self.state = state
            self.read = { $0[keyPath: keyPath] }
        }

        init(state: SlicedState, read: @escaping (Wrapped) -> SliceValue?) {
            self.state = state
            self.read = read
        }

        /// The part of the state's value, or nil when the state (or an optional part) is nil.
        @MainActor public var value: SliceValue? { state.value.flatMap(read) }
    }

    /// A writable optional part of an optional state's value: nil while the state or the part
    /// is nil. Setting it to nil clears the part; setting it while the state is nil does nothing.
    public struct OptionalSliceOptionalValue<SlicedState: MutableApplicationState, Wrapped, SliceValue>: MutableApplicationState
    where SlicedState.Value == Wrapped? {
        let state: SlicedState
        let keyPath: WritableKeyPath<Wrapped, SliceValue?>

        /// The part of the state's value, or nil when the state or the part is nil.
        @MainActor public var value: SliceValue? {
            get { state.value?[keyPath: keyPath] }
            nonmutating set {
                guard state.value != nil else { return }
                var state = state
                state.value?[keyPath: keyPath] = newValue
            }
        }

        /// Resets the whole state this slice is part of.
        @MainActor public func reset() {
            var state = state
            state.reset()
        }
    }
}

extension Application {
    /// In-memory state, created from its initial value on first read and kept for the life of the
    /// application.
    ///
    /// ```swift
    /// extension Application {
    ///     var count: State<Int> { state(initial: 0) }
    /// }
    /// Application.state(\.count).value += 1
    /// ```
    ///
    /// Reads are tracked by Swift Observation per key: a write notifies only the observers of that
    /// state.
    public struct State<Value: Sendable>: MutableApplicationState {
        /// The emoji for in-memory state in log messages.
        public static var emoji: Character {
            #if canImport(OSLog)
            "🔄"
            #else
            "📦"
            #endif
        }

        let app: Application
        let scope: Scope
        let initial: () -> Value


        @MainActor private var box: StateBox<Value> {
            app.cache.slot(scope.key).value(key: scope.key) { StateBox(initial(), anchor: app.anchor) }
        }

        /// The current value.
        @MainActor public var value: Value {
            get { box.value }
            nonmutating set { box.value = newValue }
        }

        /// Sets the value back to the initial value.
        @MainActor public func reset() {
            box.value = initial()
        }
    }

    /// Registers state under `feature/id`, starting from `initial`.
    public func state<Value: Sendable>(
        initial: @autoclosure @escaping () -> Value,
        feature: String = "App",
        id: String
    ) -> State<Value> {
        State(app: self, scope: Scope(name: feature, id: id), initial: initial)
    }

    /// Registers state keyed by the call site, starting from `initial`.
    public func state<Value: Sendable>(
        initial: @autoclosure @escaping () -> Value,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> State<Value> {
        State(
            app: self,
            scope: .codeLocation(fileID: fileID, function: function, line: line, column: column),
            initial: initial)
    }

    /// Returns a state (or any ``MutableApplicationState``) of the current application.
    @MainActor
    public static func state<S: MutableApplicationState>(_ keyPath: KeyPath<Application, S>) -> S {
        current[keyPath: keyPath]
    }

    /// Sets a state of any kind back to its initial value: in-memory, stored, file, or the state a
    /// slice is part of.
    @MainActor
    public static func reset<S: MutableApplicationState>(_ keyPath: KeyPath<Application, S>) {
        var state = current[keyPath: keyPath]
        state.reset()
    }
}

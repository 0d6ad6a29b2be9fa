extension Application {
    /// A value built once, on first use, and shared from then on: a service, a client, a container.
    ///
    /// ```swift
    /// extension Application {
    ///     var api: Dependency<APIClient> { dependency(APIClient()) }
    ///     var store: Dependency<Store> { dependency(Store(api: api.value)) }  // one definer uses another
    /// }
    /// let api = Application.dependency(\.api)
    /// ```
    ///
    /// The builder runs exactly once per application, even when several threads or tasks ask for the
    /// value at the same time, and never while only the dependency's key is needed (to override
    /// it, say). An ``Application/override(_:with:)`` takes precedence while active. Reads are
    /// tracked by Observation; writing through `Application.dependencySlice(_:_:)` or
    /// `@DependencySlice` notifies them.
    public struct Dependency<Value: Sendable> {
        let app: Application
        let scope: Scope
        /// The value the definer resolved; nil when the definer ran only to name its key.
        let resolved: Value?

        /// The resolved value: the active override, or the value built on first use.
        public var value: Value {
            app.signals.signal(for: scope.key).access()
            app.anchor.access()
            if let overridden: Value = app.overrides.top(scope.key) { return overridden }
            guard let resolved else {
                preconditionFailure("AppState: the dependency '\(scope.key)' was read for its key only; read it again.")
            }
            return resolved
        }

        /// Replaces the dependency's value (the active override's, while one is), and notifies its
        /// observers.
        func replace(with newValue: Value) {
            if !app.overrides.replaceTop(scope.key, with: newValue) {
                app.cache.slot(scope.key).set(newValue)
            }
            app.signals.signal(for: scope.key).changed()
        }
    }

    /// Set while key paths are evaluated only for the keys they name, so definers build nothing.
    @TaskLocal static var isReadingKeysOnly = false

    /// The dependency at `keyPath` without building it: its application and key.
    static func unresolved<Value>(_ keyPath: KeyPath<Application, Dependency<Value>>) -> Dependency<Value> {
        $isReadingKeysOnly.withValue(true) { current[keyPath: keyPath] }
    }

    /// The dependency's value: the active override, the cached value, or `make()`'s, cached.
    private func resolve<Value: Sendable>(_ scope: Scope, _ make: () -> Value) -> Value? {
        if Application.isReadingKeysOnly { return nil }
        if let overridden: Value = overrides.top(scope.key) { return overridden }
        return cache.slot(scope.key).value(key: scope.key, orMake: make)
    }

    /// Registers a dependency under `feature/id`. The autoclosure runs once, on first use; it does
    /// not escape, so it may use other definers with implicit `self`.
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        feature: String = "App",
        id: String
    ) -> Dependency<Value> {
        let scope = Scope(name: feature, id: id)
        return Dependency(app: self, scope: scope, resolved: resolve(scope, object))
    }

    /// Registers a dependency keyed by the call site. The autoclosure runs once, on first use.
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> Dependency<Value> {
        let scope = Scope.codeLocation(fileID: fileID, function: function, line: line, column: column)
        return Dependency(app: self, scope: scope, resolved: resolve(scope, object))
    }

    /// Resolves a dependency from any thread or actor.
    public static func dependency<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>
    ) -> Value {
        current[keyPath: keyPath].value
    }

    /// Builds a dependency now, ahead of its first use.
    @discardableResult
    public static func load<Value: Sendable>(dependency keyPath: KeyPath<Application, Dependency<Value>>) -> Application.Type {
        _ = current[keyPath: keyPath].value
        return Application.self
    }
}

extension Application {
    /// A value built once, on first use, and shared from then on: a service, a client, a container.
    ///
    /// ```swift
    /// extension Application {
    ///     var api: Dependency<APIClient> { dependency(APIClient()) }
    /// }
    /// let api = Application.dependency(\.api)
    /// ```
    ///
    /// The builder runs exactly once per application, even when several threads or tasks ask for the
    /// value at the same time. An ``Application/override(_:with:)`` takes precedence while active.
    public struct Dependency<Value: Sendable> {
        let app: Application
        let scope: Scope
        let make: () -> Value

        /// The resolved value: the active override, or the value built on first use.
        public var value: Value {
            if let overridden: Value = app.overrides.top(scope.key) { return overridden }
            return app.cache.slot(scope.key).value(key: scope.key, orMake: make)
        }
    }

    /// Registers a dependency under `feature/id`. The autoclosure runs once, on first use.
    public func dependency<Value: Sendable>(
        _ object: @autoclosure @escaping () -> Value,
        feature: String = "App",
        id: String
    ) -> Dependency<Value> {
        Dependency(app: self, scope: Scope(name: feature, id: id), make: object)
    }

    /// Registers a dependency keyed by the call site. The autoclosure runs once, on first use.
    public func dependency<Value: Sendable>(
        _ object: @autoclosure @escaping () -> Value,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> Dependency<Value> {
        Dependency(
            app: self,
            scope: .codeLocation(fileID: fileID, function: function, line: line, column: column),
            make: object)
    }

    /// Resolves a dependency from any thread or actor.
    public static func dependency<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>
    ) -> Value {
        current[keyPath: keyPath].value
    }
}

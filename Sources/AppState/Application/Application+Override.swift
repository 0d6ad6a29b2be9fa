extension Application {
    /// An active override. Cancelling it, or releasing the last reference to it, restores what the
    /// dependency resolved to before.
    ///
    /// Keep the token alive for as long as the override should hold, for example in a `let` that is
    /// used (or cancelled) at the end of the test.
    public final class DependencyOverride: Sendable {
        private let app: Application
        private let key: String

        init(app: Application, key: String, value: any Sendable) {
            self.app = app
            self.key = key
            app.overrides.push(value, key: key, token: ObjectIdentifier(self))
        }

        /// Ends the override. Calling it again does nothing.
        public func cancel() async {
            end()
        }

        deinit {
            end()
        }

        /// Removes the override from its application and, if ``Application/promote(to:)`` has
        /// since carried it over to a new shared application, from that one too.
        private func end() {
            app.overrides.remove(key: key, token: ObjectIdentifier(self))
            let shared = Application.shared
            if shared !== app { shared.overrides.remove(key: key, token: ObjectIdentifier(self)) }
        }
    }

    /// Replaces a dependency with `value` until the returned token is cancelled or released.
    /// Overrides of one key nest: the newest wins, and ending it uncovers the previous one.
    ///
    /// ```swift
    /// let token = Application.override(\.api, with: MockAPI())
    /// defer { withExtendedLifetime(token) {} }
    /// ```
    public static func override<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>,
        with value: Value
    ) -> DependencyOverride {
        let dependency = unresolved(keyPath)
        return DependencyOverride(app: dependency.app, key: dependency.scope.key, value: value)
    }

    /// Makes `value` the dependency's permanent value in the current application, replacing any
    /// value built before. Active overrides still take precedence until they end.
    public static func promote<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>,
        with value: Value
    ) {
        let dependency = unresolved(keyPath)
        dependency.app.cache.slot(dependency.scope.key).set(value)
    }
}

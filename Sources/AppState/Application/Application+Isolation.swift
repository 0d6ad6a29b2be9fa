extension Application {
    /// Runs `body` against a fresh, empty application: its dependencies, states and overrides are
    /// invisible outside, and nothing from outside leaks in.
    ///
    /// This is the way to test code that uses AppState. Swift Testing runs tests in parallel, and
    /// each test that wraps its body in a scope gets its own container:
    ///
    /// ```swift
    /// @Test @MainActor func incrementsTheCounter() {
    ///     Application.withIsolatedScope {
    ///         Application.state(\.count).value += 1
    ///         #expect(Application.state(\.count).value == 1)
    ///     }
    /// }
    /// ```
    ///
    /// The scope is a task-local value: child tasks inherit it, while detached tasks and other
    /// threads see ``Application/shared``.
    public static func withIsolatedScope<R>(_ body: () throws -> R) rethrows -> R {
        try $scoped.withValue(Application(), operation: body)
    }

    /// Runs the asynchronous `body` against a fresh, empty application. See
    /// ``withIsolatedScope(_:)``.
    public static func withIsolatedScope<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await $scoped.withValue(Application(), operation: body, isolation: isolation)
    }
}

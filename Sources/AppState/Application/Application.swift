import Foundation
import Synchronization

/// The dependency-injection container.
///
/// Register values as computed properties in `extension Application`, then read them through the
/// static accessors (`Application.dependency(\.x)`, `Application.state(\.x)`) or the property
/// wrappers (`@AppDependency`, `@AppState`, …):
///
/// ```swift
/// extension Application {
///     var greeter: Dependency<Greeter> { dependency(Greeter()) }
///     var count: State<Int> { state(initial: 0) }
/// }
/// ```
///
/// Every value lives in the *current* application: `Application.shared`, or the isolated one that
/// ``withIsolatedScope(_:)`` installs for the duration of a test.
public final class Application: Sendable {
    /// The process-wide application used outside any isolated scope.
    public static let shared = Application()

    @TaskLocal static var scoped: Application?

    /// The application that static accessors resolve against: the innermost isolated scope, or
    /// ``shared``.
    public static var current: Application { scoped ?? shared }

    let cache = Cache()
    let overrides = OverrideStack()

    init() {}
}

extension Application: CustomStringConvertible {
    /// A readable dump of what this application holds: the keys of resolved values and active
    /// overrides.
    public var description: String {
        let keys = cache.keys.sorted()
        let overridden = overrides.keys.sorted()
        var lines = ["Application (\(keys.count) values, \(overridden.count) overridden)"]
        lines += keys.map { key in overridden.contains(key) ? "  \(key) (overridden)" : "  \(key)" }
        return lines.joined(separator: "\n")
    }
}

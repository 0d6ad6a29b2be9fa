import Foundation
import Observation
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
/// Every value lives in the *current* application: ``shared``, or the isolated one that
/// ``withIsolatedScope(_:)`` installs for the duration of a test. As in AppState, `Application` is
/// an open class: ``promote(to:)`` swaps in a subclass, keeping what is registered.
open class Application: NSObject, @unchecked Sendable {
    private static let sharedApplication = Mutex<Application>(Application())

    /// The process-wide application used outside any isolated scope.
    public static var shared: Application { sharedApplication.withLock { $0 } }

    @TaskLocal static var scoped: Application?

    /// The application that static accessors resolve against: the innermost isolated scope, or
    /// ``shared``.
    public static var current: Application { scoped ?? shared }

    let cache: Cache
    let overrides: OverrideStack
    /// Read by every state and dependency read, so ``notifyChange()`` reaches every observer.
    let anchor: ChangeAnchor
    let signals: Signals

    /// A new, empty application. `setup` runs once it exists, for example to register values.
    /// Use ``promote(to:)`` to make a subclass the shared application.
    public required init(setup: (Application) -> Void = { _ in }) {
        cache = Cache()
        overrides = OverrideStack()
        anchor = ChangeAnchor()
        signals = Signals()
        super.init()
        setup(self)
    }

    /// Makes a new instance of `customApplication` the shared application, carrying over every
    /// value, state and override the previous one holds: observers and open states keep working.
    ///
    /// ```swift
    /// final class MyApplication: Application { … }
    /// Application.promote(to: MyApplication.self)
    /// ```
    @MainActor
    @discardableResult
    public static func promote<CustomApplication: Application>(to customApplication: CustomApplication.Type) -> CustomApplication.Type {
        let promoted = customApplication.init()
        sharedApplication.withLock { previous in
            promoted.cache.adopt(previous.cache)
            promoted.overrides.adopt(previous.overrides)
            previous = promoted
        }
        return customApplication
    }

    /// Tells every observer of every state and dependency of this application that something
    /// changed, for changes AppState cannot see (a dependency mutated in place, say).
    public func notifyChange() {
        anchor.changed()
    }

    /// A readable dump of what this application holds: the keys of resolved values and active
    /// overrides.
    open override var description: String {
        let keys = cache.keys.sorted()
        let overridden = overrides.keys.sorted()
        var lines = ["Application (\(keys.count) values, \(overridden.count) overridden)"]
        lines += keys.map { key in overridden.contains(key) ? "  \(key) (overridden)" : "  \(key)" }
        return lines.joined(separator: "\n")
    }

    /// A readable dump of what the current application holds.
    @MainActor public static var description: String { current.description }
}

/// An observable value with no content: reading it subscribes, and ``changed()`` notifies.
final class ChangeAnchor: Observable, Sendable {
    private let registrar = ObservationRegistrar()

    /// Registers a read with Observation.
    func access() { registrar.access(self, keyPath: \.version) }

    /// Notifies everyone who read it.
    func changed() { registrar.withMutation(of: self, keyPath: \.version) {} }

    /// The observed key; it carries no value.
    var version: Void { () }
}

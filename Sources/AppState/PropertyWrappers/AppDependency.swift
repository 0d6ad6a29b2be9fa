/// Resolves a dependency of the current application on each read:
/// `@AppDependency(\.api) var api: APIClient`.
@propertyWrapper
public struct AppDependency<Value: Sendable> {
    private let keyPath: KeyPath<Application, Application.Dependency<Value>>

    /// Wraps the dependency at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.Dependency<Value>>) {
        self.keyPath = keyPath
    }

    /// The resolved dependency: the active override, or the registered value.
    public var wrappedValue: Value { Application.dependency(keyPath) }
}

/// Reads and writes a property of a dependency, a class or a struct:
/// `@DependencySlice(\.settings, \.isVerbose) var isVerbose: Bool`. Writing replaces (or, for a
/// class, mutates) the dependency's value and notifies its readers through Observation.
@propertyWrapper
public struct DependencySlice<DependencyValue: Sendable, Value> {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<DependencyValue>>
    private let valueKeyPath: WritableKeyPath<DependencyValue, Value>

    /// Wraps the property `valueKeyPath` of the dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<DependencyValue>>,
        _ valueKeyPath: WritableKeyPath<DependencyValue, Value>
    ) {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The dependency's property.
    @MainActor public var wrappedValue: Value {
        get { Application.dependencySlice(dependencyKeyPath, valueKeyPath).value }
        nonmutating set { Application.dependencySlice(dependencyKeyPath, valueKeyPath).value = newValue }
    }
}

/// Reads a property of a dependency: `@DependencyConstant(\.config, \.baseURL) var baseURL: URL`.
@propertyWrapper
public struct DependencyConstant<DependencyValue: Sendable, Value> {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<DependencyValue>>
    private let valueKeyPath: KeyPath<DependencyValue, Value>

    /// Wraps the property `valueKeyPath` of the dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<DependencyValue>>,
        _ valueKeyPath: KeyPath<DependencyValue, Value>
    ) {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The dependency's property.
    public var wrappedValue: Value { Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath] }
}

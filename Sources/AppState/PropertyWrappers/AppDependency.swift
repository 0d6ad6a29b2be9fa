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

/// Reads and writes a property of a reference-type dependency:
/// `@DependencySlice(\.settings, \.isVerbose) var isVerbose: Bool`.
@propertyWrapper
public struct DependencySlice<DependencyValue: Sendable & AnyObject, Value> {
    private let dependencyKeyPath: KeyPath<Application, Application.Dependency<DependencyValue>>
    private let valueKeyPath: ReferenceWritableKeyPath<DependencyValue, Value>

    /// Wraps the property `valueKeyPath` of the dependency at `dependencyKeyPath`.
    public init(
        _ dependencyKeyPath: KeyPath<Application, Application.Dependency<DependencyValue>>,
        _ valueKeyPath: ReferenceWritableKeyPath<DependencyValue, Value>
    ) {
        self.dependencyKeyPath = dependencyKeyPath
        self.valueKeyPath = valueKeyPath
    }

    /// The dependency's property.
    @MainActor public var wrappedValue: Value {
        get { Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath] }
        nonmutating set { Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath] = newValue }
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
    public var wrappedValue: Value { Application.dependencySlice(dependencyKeyPath, valueKeyPath) }
}

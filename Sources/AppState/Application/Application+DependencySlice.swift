extension Application {
    /// A part of a dependency, reached through a key path. Through a writable key path it can be
    /// set: the dependency's value is replaced (for a struct) or mutated (for a class), and readers
    /// of the dependency are notified through Observation.
    ///
    /// ```swift
    /// Application.dependencySlice(\.settings, \.isVerbose).value = true
    /// ```
    public struct DependencySlice<Value: Sendable, SliceValue, SliceKeyPath: KeyPath<Value, SliceValue>> {
        let dependency: Dependency<Value>
        let keyPath: SliceKeyPath
    }

    /// Returns a part of a dependency of the current application.
    public static func dependencySlice<Value: Sendable, SliceValue>(
        _ dependencyKeyPath: KeyPath<Application, Dependency<Value>>,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) -> DependencySlice<Value, SliceValue, KeyPath<Value, SliceValue>> {
        DependencySlice(dependency: current[keyPath: dependencyKeyPath], keyPath: valueKeyPath)
    }

    /// Returns a writable part of a dependency of the current application.
    public static func dependencySlice<Value: Sendable, SliceValue>(
        _ dependencyKeyPath: KeyPath<Application, Dependency<Value>>,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) -> DependencySlice<Value, SliceValue, WritableKeyPath<Value, SliceValue>> {
        DependencySlice(dependency: current[keyPath: dependencyKeyPath], keyPath: valueKeyPath)
    }
}

extension Application.DependencySlice where SliceKeyPath == KeyPath<Value, SliceValue> {
    /// The part of the dependency's value.
    @MainActor public var value: SliceValue { dependency.value[keyPath: keyPath] }
}

extension Application.DependencySlice where SliceKeyPath == WritableKeyPath<Value, SliceValue> {
    /// The part of the dependency's value. Setting it writes the dependency's value back.
    @MainActor public var value: SliceValue {
        get { dependency.value[keyPath: keyPath] }
        nonmutating set {
            var value = dependency.value
            value[keyPath: keyPath] = newValue
            dependency.replace(with: value)
        }
    }
}

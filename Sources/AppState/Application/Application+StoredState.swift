import Foundation

extension Application {
    /// State persisted in UserDefaults (the `userDefaults` dependency) as JSON, so it survives
    /// relaunches.
    ///
    /// ```swift
    /// extension Application {
    ///     var theme: StoredState<String> { storedState(initial: "light", id: "theme") }
    /// }
    /// ```
    ///
    /// A corrupt stored value is moved aside to `"<key>.corrupt"` and the state falls back to its
    /// initial value; a value of another type is left alone. Both are logged as errors.
    public struct StoredState<Value: Codable & Sendable>: MutableApplicationState {
        /// The emoji for stored state in log messages.
        public static var emoji: Character { "💾" }

        let core: PersistedState<Value>

        /// The current value. Setting it writes through to UserDefaults.
        @MainActor public var value: Value {
            get { core.value }
            nonmutating set { core.value = newValue }
        }

        /// Sets the value back to the initial value and removes it from UserDefaults.
        @MainActor public func reset() { core.reset() }
    }

    /// Registers state persisted in UserDefaults under the key `feature/id`.
    public func storedState<Value: Codable & Sendable>(
        initial: @autoclosure @escaping () -> Value,
        feature: String = "App",
        id: String,
        fileID: String = #fileID,
        line: Int = #line
    ) -> StoredState<Value> {
        let key = Scope(name: feature, id: id).key
        return StoredState(
            core: PersistedState(
                app: self, key: key, cacheKey: "StoredState/\(key)", initial: initial,
                backend: { UserDefaultsBackend(defaults: self.userDefaults.value, key: key) },
                isBase64Encoded: false, fileID: fileID, line: line))
    }

    /// Registers optional state persisted in UserDefaults under the key `feature/id`, nil until
    /// set. Setting it to nil removes the key.
    public func storedState<Value: Codable & Sendable>(
        feature: String = "App",
        id: String,
        fileID: String = #fileID,
        line: Int = #line
    ) -> StoredState<Value?> {
        storedState(initial: nil, feature: feature, id: id, fileID: fileID, line: line)
    }

    /// Returns a stored state of the current application.
    @MainActor
    public static func storedState<Value>(_ keyPath: KeyPath<Application, StoredState<Value>>) -> StoredState<Value> {
        current[keyPath: keyPath]
    }

    /// Sets a stored state back to its initial value and removes it from UserDefaults.
    @MainActor
    public static func reset<Value>(storedState keyPath: KeyPath<Application, StoredState<Value>>) {
        current[keyPath: keyPath].reset()
    }
}

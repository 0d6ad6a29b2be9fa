#if canImport(Darwin)
import Foundation

/// `NSUbiquitousKeyValueStore` is thread-safe; this wrapper lets it be a dependency.
public struct UbiquitousKeyValueStore: @unchecked Sendable {
    /// The wrapped store.
    public let store: NSUbiquitousKeyValueStore

    /// Wraps `store` (the default store unless given).
    public init(_ store: NSUbiquitousKeyValueStore = .default) {
        self.store = store
    }
}

extension Application {
    /// The iCloud key-value store ``SyncState`` uses.
    public var icloudStore: Dependency<UbiquitousKeyValueStore> {
        dependency(UbiquitousKeyValueStore(), feature: "AppState", id: "icloudStore")
    }

    /// State kept in the iCloud key-value store as JSON under `feature/id`, as in AppState, so it
    /// follows the user's devices. Apple platforms only; the app needs the iCloud key-value
    /// storage entitlement.
    public struct SyncState<Value: Codable & Sendable>: MutableApplicationState {
        /// The emoji for synced state in log messages.
        public static var emoji: Character { "☁️" }

        let app: Application
        let scope: Scope
        let initial: () -> Value

        /// The synced value, or the initial value when none is stored or it cannot be decoded.
        @MainActor public var value: Value {
            get {
                app.signals.signal(for: scope.key).access()
                guard let data = app.icloudStore.value.store.data(forKey: scope.key),
                    let value = try? JSONDecoder().decode(Value.self, from: data)
                else { return initial() }
                return value
            }
            nonmutating set {
                let store = app.icloudStore.value.store
                if (newValue as? any OptionalValue)?.isNil == true {
                    store.removeObject(forKey: scope.key)
                } else if let data = try? JSONEncoder().encode(newValue) {
                    store.set(data, forKey: scope.key)
                }
                app.signals.signal(for: scope.key).changed()
            }
        }

        /// Stores the initial value again.
        @MainActor public func reset() { value = initial() }
    }

    /// Registers state synced through iCloud under `feature/id`.
    public func syncState<Value: Codable & Sendable>(
        initial: @autoclosure @escaping () -> Value, feature: String = "App", id: String
    ) -> SyncState<Value> {
        SyncState(app: self, scope: Scope(name: feature, id: id), initial: initial)
    }

    /// Returns a synced state of the current application.
    @MainActor
    public static func syncState<Value>(_ keyPath: KeyPath<Application, SyncState<Value>>) -> SyncState<Value> {
        current[keyPath: keyPath]
    }
}

/// Reads and writes an ``Application/SyncState``: `@SyncState(\.isDarkMode) var isDarkMode: Bool`.
@propertyWrapper
public struct SyncState<Value: Codable & Sendable> {
    private let keyPath: KeyPath<Application, Application.SyncState<Value>>

    /// Wraps the synced state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.SyncState<Value>>) {
        self.keyPath = keyPath
    }

    /// The synced value.
    @MainActor public var wrappedValue: Value {
        get { Application.syncState(keyPath).value }
        nonmutating set { Application.syncState(keyPath).value = newValue }
    }
}
#endif

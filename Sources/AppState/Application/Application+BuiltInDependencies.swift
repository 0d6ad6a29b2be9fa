import Foundation

/// What ``Application/StoredState`` needs of `UserDefaults`, so tests can override the
/// `userDefaults` dependency with an in-memory fake.
public protocol UserDefaultsManaging: Sendable {
    /// The value stored under `key`, or nil.
    func object(forKey key: String) -> Any?
    /// Removes the value stored under `key`.
    func removeObject(forKey key: String)
    /// Stores `value` under `key`; nil removes it.
    func set(_ value: Any?, forKey key: String)
}

#if canImport(Darwin)
extension UserDefaults: UserDefaultsManaging {}
#endif

/// `UserDefaults` is thread-safe, but Linux's Foundation does not mark it `Sendable`; this wrapper
/// lets it be a dependency on every platform. Linux's Foundation does not flush defaults at exit,
/// so every change is synchronized at once.
public struct SendableUserDefaults: UserDefaultsManaging, @unchecked Sendable {
    /// The wrapped defaults.
    public let defaults: UserDefaults

    /// Wraps `defaults`.
    public init(_ defaults: UserDefaults) {
        self.defaults = defaults
    }

    public func object(forKey key: String) -> Any? { defaults.object(forKey: key) }

    public func removeObject(forKey key: String) {
        defaults.removeObject(forKey: key)
        defaults.synchronize()
    }

    public func set(_ value: Any?, forKey key: String) {
        defaults.set(value, forKey: key)
        defaults.synchronize()
    }
}

extension Application {
    /// The defaults that ``StoredState`` reads and writes. Override it to use a suite of your own,
    /// or an in-memory fake.
    public var userDefaults: Dependency<any UserDefaultsManaging> {
        dependency(SendableUserDefaults(.standard), feature: "AppState", id: "userDefaults")
    }

    /// The file manager that ``FileState`` uses.
    public var fileManager: Dependency<FileManager> {
        dependency(.default, feature: "AppState", id: "fileManager")
    }
}

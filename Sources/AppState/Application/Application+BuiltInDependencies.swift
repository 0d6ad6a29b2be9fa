import Foundation

/// `UserDefaults` is thread-safe, but Linux's Foundation does not mark it `Sendable`; this wrapper
/// lets it be a dependency on every platform.
public struct SendableUserDefaults: @unchecked Sendable {
    /// The wrapped defaults.
    public let defaults: UserDefaults

    /// Wraps `defaults`.
    public init(_ defaults: UserDefaults) {
        self.defaults = defaults
    }
}

extension Application {
    /// The defaults that ``StoredState`` reads and writes. Override it to use a suite of your own.
    public var userDefaults: Dependency<SendableUserDefaults> {
        dependency(SendableUserDefaults(.standard), feature: "AppState", id: "userDefaults")
    }

    /// The file manager that ``FileState`` uses.
    public var fileManager: Dependency<FileManager> {
        dependency(.default, feature: "AppState", id: "fileManager")
    }
}

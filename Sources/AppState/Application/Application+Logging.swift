import Synchronization

private let loggingEnabled = Atomic<Bool>(false)

extension Application {
    /// The logger AppState reports through. Override it to capture or redirect messages.
    public var logger: Dependency<ApplicationLogger> {
        dependency(.standard, feature: "AppState", id: "logger")
    }

    /// Whether debug and info chatter is emitted. Warnings and errors are always logged.
    public static var isLoggingEnabled: Bool { loggingEnabled.load(ordering: .relaxed) }

    /// Turns debug and info chatter on or off for the whole process.
    @discardableResult
    public static func logging(isEnabled: Bool) -> Application.Type {
        loggingEnabled.store(isEnabled, ordering: .relaxed)
        return self
    }

    /// The current application's logger.
    static var log: ApplicationLogger { dependency(\.logger) }
}

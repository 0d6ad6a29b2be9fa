import Foundation
import Synchronization

/// Where ModelKit sends debug messages, such as a predicate it evaluates in Swift because part of
/// it has no SQL translation.
///
/// By default, messages go to standard error when the `MODELKIT_DEBUG` environment variable is set,
/// and nowhere otherwise.
public enum ModelKitDebugLog {
    private static let storage = Mutex<(@Sendable (String) -> Void)?>(defaultHandler)

    private static var defaultHandler: (@Sendable (String) -> Void)? {
        guard ProcessInfo.processInfo.environment["MODELKIT_DEBUG"] != nil else { return nil }
        return { message in FileHandle.standardError.write(Data("ModelKit: \(message)\n".utf8)) }
    }

    /// Receives each debug message; nil drops them.
    public static var handler: (@Sendable (String) -> Void)? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    static func log(_ message: @autoclosure () -> String) {
        handler?(message())
    }
}

import Foundation
import Synchronization

/// Where ModelKit sends its messages: debug notes, such as a predicate it evaluates in Swift
/// because part of it has no SQL translation, and errors it cannot throw, such as a failed
/// autosave of the main context.
///
/// By default, errors go to standard error, and debug messages go there too when the
/// `MODELKIT_DEBUG` environment variable is set.
public enum ModelKitDebugLog {
    /// How much a message matters.
    public enum Level: Int, Sendable, Comparable {
        /// A note for whoever is tuning or debugging: dropped by default.
        case debug
        /// Something failed and could not be reported to a caller.
        case error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private static let storage = Mutex<(@Sendable (Level, String) -> Void)?>(defaultHandler)

    private static var defaultHandler: @Sendable (Level, String) -> Void {
        let showsDebug = ProcessInfo.processInfo.environment["MODELKIT_DEBUG"] != nil
        return { level, message in
            guard level == .error || showsDebug else { return }
            FileHandle.standardError.write(Data("ModelKit\(level == .error ? " error" : ""): \(message)\n".utf8))
        }
    }

    /// Receives each message with its level; nil drops them all.
    public static var handler: (@Sendable (Level, String) -> Void)? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    static func log(_ message: @autoclosure () -> String) {
        handler?(.debug, message())
    }

    static func error(_ message: String) {
        handler?(.error, message)
    }
}

import Foundation

#if canImport(os)
import os
#endif

/// The logger AppState reports through, registered as the `logger` dependency so tests and apps
/// can replace it:
///
/// ```swift
/// let token = Application.override(\.logger, with: ApplicationLogger { entry in captured.append(entry) })
/// ```
///
/// Warnings and errors always reach the sink. Debug and info messages are chatter, emitted only
/// while ``Application/isLoggingEnabled`` is true.
public struct ApplicationLogger: Sendable {
    /// How serious a message is.
    public enum Level: Int, Comparable, Sendable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// One message, with the source location of the code it is about.
    public struct Entry: Sendable, CustomStringConvertible {
        /// How serious the message is.
        public let level: Level
        /// The message itself.
        public let message: String
        /// The file (`#fileID`) of the code the message is about.
        public let fileID: String
        /// The line of the code the message is about.
        public let line: Int

        public var description: String { "[AppState] \(level) \(fileID):\(line): \(message)" }
    }

    private let sink: @Sendable (Entry) -> Void

    /// Creates a logger that hands every emitted entry to `sink`.
    public init(_ sink: @escaping @Sendable (Entry) -> Void) {
        self.sink = sink
    }

    /// The default logger: `os.Logger` on Apple platforms, standard error elsewhere.
    public static let standard: ApplicationLogger = {
        #if canImport(os)
        let logger = Logger(subsystem: "AppState", category: "Application")
        return ApplicationLogger { entry in
            switch entry.level {
            case .debug: logger.debug("\(entry.description, privacy: .public)")
            case .info: logger.info("\(entry.description, privacy: .public)")
            case .warning: logger.warning("\(entry.description, privacy: .public)")
            case .error: logger.error("\(entry.description, privacy: .public)")
            }
        }
        #else
        return ApplicationLogger { entry in
            FileHandle.standardError.write(Data((entry.description + "\n").utf8))
        }
        #endif
    }()

    /// Emits a message at `level`. Debug and info are dropped unless logging is enabled.
    public func log(
        _ level: Level, _ message: @autoclosure () -> String, fileID: String = #fileID, line: Int = #line
    ) {
        guard level >= .warning || Application.isLoggingEnabled else { return }
        sink(Entry(level: level, message: message(), fileID: fileID, line: line))
    }

    /// Emits verbose tracing, when logging is enabled.
    public func debug(_ message: @autoclosure () -> String, fileID: String = #fileID, line: Int = #line) {
        log(.debug, message(), fileID: fileID, line: line)
    }

    /// Emits an informational message, when logging is enabled.
    public func info(_ message: @autoclosure () -> String, fileID: String = #fileID, line: Int = #line) {
        log(.info, message(), fileID: fileID, line: line)
    }

    /// Emits a warning.
    public func warning(_ message: @autoclosure () -> String, fileID: String = #fileID, line: Int = #line) {
        log(.warning, message(), fileID: fileID, line: line)
    }

    /// Emits an error.
    public func error(_ message: @autoclosure () -> String, fileID: String = #fileID, line: Int = #line) {
        log(.error, message(), fileID: fileID, line: line)
    }
}

import Foundation

/// One of the package's executables, run as a new process per call, as a user would run it: with
/// a home and data directory of its own, removed when the tool is released.
public final class CommandLineTool: Sendable {
    /// What a run printed and how it ended.
    public struct Result {
        public let status: Int32
        public let out: String
        public let err: String
    }

    /// The tool's `HOME`, under the system temp directory.
    public let home: URL
    /// The tool's executable file.
    public let executable: URL

    /// Prepares to run the executable product `name`, built beside the test bundle.
    public init(_ name: String) throws {
        executable = ChildProcess.product(name)
        home = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: home) }

    /// `XDG_DATA_HOME` for the tool: where default stores go.
    public var dataDirectory: URL { home.appendingPathComponent("data") }

    @discardableResult
    public func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    @discardableResult
    public func run(_ arguments: [String]) throws -> Result {
        let process = try start(arguments, standardError: .pipe)
        let (output, error) = process.readToEnd()
        let status = switch process.waitUntilExit() {
        case .exit(let status): status
        case .signal(let signal): 128 + signal
        }
        return Result(status: status, out: String(decoding: output, as: UTF8.self), err: String(decoding: error, as: UTF8.self))
    }

    /// Starts the tool with `arguments` in its own home, and returns at once.
    public func start(_ arguments: [String], standardOutput: ChildProcess.Output = .pipe, standardError: ChildProcess.Output = .discard) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = dataDirectory.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["HOME"] = home.path
        return try ChildProcess(executable, arguments: arguments, environment: environment, standardOutput: standardOutput, standardError: standardError)
    }
}

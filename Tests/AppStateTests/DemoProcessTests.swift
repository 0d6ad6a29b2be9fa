import Foundation
import Testing

/// Runs the `appstate-demo` executable as separate processes, to check that StoredState and
/// FileState values survive a new process.
@Suite struct DemoProcessTests {
    func run(_ arguments: [String], home: URL) throws -> String {
        let executable = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("appstate-demo")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["HOME"] = home.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func storedAndFileStateSurviveANewProcess() throws {
        let home = try TemporaryDirectory()
        let first = try run(["Ada"], home: home.url)
        #expect(first.contains("Hello, Ada!"))
        #expect(first.contains("launch 1 (UserDefaults)"))
        #expect(first.contains("launch 1 (\(home.url.path)/data/AppState/launches.json)"))
        let second = try run(["Bob"], home: home.url)
        #expect(second.contains("launch 2 (UserDefaults)"))
        #expect(second.contains("launch 2 ("))
        #expect(second.contains("previous launch"))
        _ = try run(["reset"], home: home.url)
        #expect(try run(["Cy"], home: home.url).contains("launch 1 (UserDefaults)"))
    }
}

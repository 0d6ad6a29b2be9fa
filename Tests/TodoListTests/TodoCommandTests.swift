import Foundation
import Testing

@testable import todo

/// Runs the `todo` executable as a new process each time, as a user would.
struct TodoProcess {
    let home: URL

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("TodoTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: home) }

    var defaultStore: URL { home.appendingPathComponent("data/todo/default.store") }

    @discardableResult
    func run(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        try run(arguments)
    }

    func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("todo")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        environment["HOME"] = home.path
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    /// The store's bytes, to check that a failed command wrote nothing.
    func snapshot(_ url: URL) -> Data? { try? Data(contentsOf: url) }
}

@Suite struct TodoCommandTests {
    @Test func addListToggleRemoveClearPersistAcrossRuns() throws {
        let todo = try TodoProcess()
        defer { todo.remove() }
        #expect(try todo.run("add", "Walk the dog").status == 0)
        #expect(try todo.run("add", "Buy", "milk").status == 0)
        #expect(FileManager.default.fileExists(atPath: todo.defaultStore.path))
        #expect(try todo.run("list").out == "[ ] Buy milk\n[ ] Walk the dog\n")
        #expect(try todo.run("toggle", "Buy milk").status == 0)
        #expect(try todo.run("list").out == "[x] Buy milk\n[ ] Walk the dog\n")
        #expect(try todo.run("remove", "Walk the dog").status == 0)
        #expect(try todo.run("list").out == "[x] Buy milk\n")
        #expect(try todo.run("clear").status == 0)
        #expect(try todo.run("list").out == "")
    }

    @Test func storeOptionPicksAnotherFile() throws {
        let todo = try TodoProcess()
        defer { todo.remove() }
        let store = todo.home.appendingPathComponent("elsewhere/list.store")
        #expect(try todo.run("--store", store.path, "add", "Read").status == 0)
        #expect(try todo.run("add", "--store", store.path, "Write").status == 0)
        #expect(try todo.run("list", "--store", store.path).out == "[ ] Read\n[ ] Write\n")
        #expect(!FileManager.default.fileExists(atPath: todo.defaultStore.path))
        #expect(try todo.run("list").out == "")
    }

    @Test(arguments: [
        (["frob"], "unknown command 'frob'"),
        ([], "missing command"),
        (["add"], "add needs a title"),
        (["toggle"], "toggle needs a title"),
        (["list", "extra"], "list takes no arguments"),
        (["toggle", "Nope"], "no item titled 'Nope'"),
        (["remove", "Nope"], "no item titled 'Nope'"),
        (["--store"], "--store needs a path"),
    ])
    func badInputFailsClearlyAndWritesNothing(arguments: [String], message: String) throws {
        let todo = try TodoProcess()
        defer { todo.remove() }
        try todo.run("add", "Keep me")
        let before = todo.snapshot(todo.defaultStore)
        let result = try todo.run(arguments)
        #expect(result.status != 0)
        #expect(result.out == "")
        #expect(result.err.contains(message))
        #expect(todo.snapshot(todo.defaultStore) == before)
        #expect(try todo.run("list").out == "[ ] Keep me\n")
    }

    @Test func mistakesOnAMissingStoreDoNotCreateIt() throws {
        let todo = try TodoProcess()
        defer { todo.remove() }
        #expect(try todo.run("toggle", "x").status == 1)
        #expect(try todo.run("list").out == "")
        #expect(try todo.run("clear").status == 0)
        #expect(!FileManager.default.fileExists(atPath: todo.defaultStore.path))
    }

    @Test func argumentsParseIntoActions() throws {
        #expect(try TodoCommand(arguments: ["add", "Buy", "milk"]).action == .add("Buy milk"))
        #expect(try TodoCommand(arguments: ["--store", "/tmp/a.store", "list"]).store?.path == "/tmp/a.store")
        #expect(throws: TodoCommand.Failure(description: "add needs a title")) { try TodoCommand(arguments: ["add", " "]) }
    }
}

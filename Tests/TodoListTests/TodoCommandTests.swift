import Foundation
import TestSupport
import Testing

@testable import todo

extension CommandLineTool {
    /// The `todo` tool, with a data directory of its own.
    static func todo() throws -> CommandLineTool { try CommandLineTool("todo") }

    var defaultStore: URL { dataDirectory.appendingPathComponent("todo/default.store") }

    /// The store's bytes, to check that a failed command wrote nothing.
    func snapshot(_ url: URL) -> Data? { try? Data(contentsOf: url) }
}

@Suite struct TodoCommandTests {
    @Test func addListToggleRemoveClearPersistAcrossRuns() throws {
        let todo = try CommandLineTool.todo()
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
        let todo = try CommandLineTool.todo()
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
        let todo = try CommandLineTool.todo()
        try todo.run("add", "Keep me")
        let before = todo.snapshot(todo.defaultStore)
        let result = try todo.run(arguments)
        #expect(result.status == 1)
        #expect(result.out == "")
        #expect(result.err.hasPrefix("todo: \(message)"))
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(todo.snapshot(todo.defaultStore) == before)
        #expect(try todo.run("list").out == "[ ] Keep me\n")
    }

    @Test(arguments: ["--help", "-h"])
    func helpPrintsTheUsageAndSucceeds(flag: String) throws {
        let todo = try CommandLineTool.todo()
        let result = try todo.run(flag)
        #expect(result.status == 0)
        #expect(result.out.contains("usage: todo"))
        #expect(result.err.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: todo.dataDirectory.path))
    }

    @Test func mistakesOnAMissingStoreDoNotCreateIt() throws {
        let todo = try CommandLineTool.todo()
        #expect(try todo.run("toggle", "x").status == 1)
        #expect(try todo.run("list").out == "")
        #expect(try todo.run("clear").status == 0)
        #expect(!FileManager.default.fileExists(atPath: todo.defaultStore.path))
    }

    @Test func argumentsParseIntoActions() throws {
        #expect(try TodoCommand(arguments: ["add", "Buy", "milk"]).action == .local(.add("Buy milk")))
        #expect(try TodoCommand(arguments: ["--store", "/tmp/a.store", "list"]).store?.path == "/tmp/a.store")
        #expect(throws: TodoCommand.Failure(description: "add needs a title")) { try TodoCommand(arguments: ["add", " "]) }
    }
}

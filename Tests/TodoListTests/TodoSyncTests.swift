#if !canImport(Darwin)
import Foundation
import ModelKitSync
import SwiftData
import TestSupport
import Testing
import TodoList

@testable import todo

/// A model of another app, for a server whose schema is not the to-do list's.
@Model final class Note {
    var text: String
    init(text: String) { self.text = text }
}

/// A sync server on loopback, in this process, serving the to-do list's model (or `types`) from a
/// store of its own; with `token`, it refuses requests without `Authorization: Bearer <token>`.
final class LoopbackSyncServer {
    let directory: URL
    let http: SyncHTTPServer
    var url: String { "http://127.0.0.1:\(http.port)" }

    init(types: [any PersistentModel.Type] = [TodoItem.self], token: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let container = try ModelContainer(
            for: Schema(types), configurations: [ModelConfiguration(url: directory.appendingPathComponent("server.store"))])
        let server = try SyncServer(container: container) { request in
            guard let token, request.credentials["authorization"] != "Bearer \(token)" else { return }
            throw SyncError(.unauthorized, "send Authorization: Bearer <token>, the token the server was started with")
        }
        http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server))
        http.start()
    }

    deinit {
        http.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

extension CommandLineTool {
    /// Runs the tool on a thread of its own: the in-process server answers on Swift's threads,
    /// which a blocking wait must not hold.
    func running(_ arguments: String...) async throws -> Result {
        try await running(arguments)
    }

    func running(_ arguments: [String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Swift.Result { try self.run(arguments) }) }
        }
    }

    func store(_ name: String) -> String { home.appendingPathComponent(name).path }
}

/// Lines as a running command prints them, awaited one at a time with a deadline.
@MainActor
final class PrintedLines {
    private let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private(set) var problems: [String] = []

    init() { (stream, continuation) = AsyncStream.makeStream(of: String.self) }

    var output: TodoCommand.Output {
        TodoCommand.Output(line: { [continuation] in continuation.yield($0) }, problem: { [weak self] in self?.problems.append($0) })
    }

    /// The next line printed, or a failure if none comes within `limit`.
    func next(within limit: Duration = .seconds(300)) async throws -> String {
        try await withThrowingTaskGroup(of: String?.self) { [stream] group in
            group.addTask {
                var lines = stream.makeAsyncIterator()
                return await lines.next()
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let line = try await group.next() ?? nil else { throw PrintedLines.Timeout(limit: limit) }
            return line
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "no line printed within \(limit)" }
    }
}

@Suite struct TodoSyncTests {
    @Test func syncAndWatchParseTheirServerAndToken() throws {
        let sync = try TodoCommand(arguments: ["--store", "a.store", "sync", "--server", "http://127.0.0.1:8080", "--token", "s3cret"])
        guard case .sync(let target) = sync.action else { Issue.record("not a sync: \(sync.action)"); return }
        #expect(target.url.absoluteString == "http://127.0.0.1:8080")
        #expect(target.token == "s3cret")
        #expect(target.transport.headers == ["Authorization": "Bearer s3cret"])
        let watch = try TodoCommand(arguments: ["watch", "--server", "https://sync.example.com/sync"])
        guard case .watch(let plain) = watch.action else { Issue.record("not a watch: \(watch.action)"); return }
        #expect(plain.token == nil)
        #expect(plain.transport.headers.isEmpty)
    }

    @Test(arguments: [
        (["sync"], "sync needs --server URL"),
        (["watch", "--token", "t"], "watch needs --server URL"),
        (["sync", "--server"], "--server needs a value"),
        (["sync", "--server", "ftp://127.0.0.1:8080"], "--server 'ftp://127.0.0.1:8080' is not a server's address"),
        (["watch", "--server", "127.0.0.1:8080"], "--server '127.0.0.1:8080' is not a server's address"),
        (["sync", "--server", "http://"], "--server 'http://' is not a server's address"),
        (["sync", "--server", "http://127.0.0.1:8080", "--token", "two words"], "--token takes the server's token"),
        (["sync", "now", "--server", "http://127.0.0.1:8080"], "sync takes no arguments"),
        (["list", "--server", "http://127.0.0.1:8080"], "--server goes only with sync and watch"),
        (["add", "Milk", "--token", "t"], "--token goes only with sync and watch"),
    ])
    func badSyncArgumentsFailInOneLineAndWriteNothing(arguments: [String], message: String) throws {
        let todo = try CommandLineTool.todo()
        let result = try todo.run(["--store", todo.store("a.store")] + arguments)
        #expect(result.status == 1)
        #expect(result.out == "")
        #expect(result.err.hasPrefix("todo: \(message)"))
        #expect(result.err.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: todo.store("a.store")))
    }

    @Test func anItemAddedOnOneStoreReachesTheOtherThroughTodoSync() async throws {
        let server = try LoopbackSyncServer()
        let todo = try CommandLineTool.todo()
        let (a, b) = (todo.store("a.store"), todo.store("b.store"))
        #expect(try await todo.running("--store", a, "add", "Buy milk").status == 0)
        let pushed = try await todo.running("--store", a, "sync", "--server", server.url)
        #expect(pushed.out == "synced with \(server.url): pushed 1, pulled 0, conflicts 0, rejected 0\n")
        #expect(pushed.status == 0)
        let pulled = try await todo.running("--store", b, "sync", "--server", server.url)
        #expect(pulled.out == "synced with \(server.url): pushed 0, pulled 1, conflicts 0, rejected 0\n")
        #expect(try await todo.running("--store", b, "list").out == "[ ] Buy milk\n")

        #expect(try await todo.running("--store", b, "toggle", "Buy milk").status == 0)
        #expect(try await todo.running("--store", b, "sync", "--server", server.url).status == 0)
        #expect(try await todo.running("--store", a, "sync", "--server", server.url).status == 0)
        #expect(try await todo.running("--store", a, "list").out == "[x] Buy milk\n")
    }

    @Test func aRefusedTokenFailsInOneLine() async throws {
        let server = try LoopbackSyncServer(token: "s3cret")
        let todo = try CommandLineTool.todo()
        let store = todo.store("a.store")
        #expect(try await todo.running("--store", store, "add", "Buy milk").status == 0)
        for command in ["sync", "watch"] {
            let result = try await todo.running("--store", store, command, "--server", server.url, "--token", "wrong")
            #expect(result.status == 1)
            #expect(result.out == "")
            #expect(result.err.hasPrefix("todo: the server at \(server.url) refused the token: "))
            #expect(result.err.split(separator: "\n").count == 1)
        }
        let anonymous = try await todo.running("--store", store, "sync", "--server", server.url)
        #expect(anonymous.status == 1)
        #expect(anonymous.err.hasPrefix("todo: the server at \(server.url) refused a sync without --token: "))
        let accepted = try await todo.running("--store", store, "sync", "--server", server.url, "--token", "s3cret")
        #expect(accepted.out == "synced with \(server.url): pushed 1, pulled 0, conflicts 0, rejected 0\n")
    }

    @Test func aServerOfAnotherSchemaFailsInOneLine() async throws {
        let server = try LoopbackSyncServer(types: [Note.self])
        let todo = try CommandLineTool.todo()
        let store = todo.store("a.store")
        #expect(try await todo.running("--store", store, "add", "Buy milk").status == 0)
        let result = try await todo.running("--store", store, "sync", "--server", server.url)
        #expect(result.status == 1)
        #expect(result.out == "")
        #expect(result.err.hasPrefix("todo: the server at \(server.url) serves other models than the to-do list's: "))
        #expect(result.err.split(separator: "\n").count == 1)
    }

    @Test func noServerAtTheAddressFailsInOneLine() async throws {
        let gone = try LoopbackSyncServer()
        let port = gone.http.port
        gone.http.stop()
        let todo = try CommandLineTool.todo()
        for command in ["sync", "watch"] {
            let result = try await todo.running("--store", todo.store("a.store"), command, "--server", "http://127.0.0.1:\(port)")
            #expect(result.status == 1)
            #expect(result.out == "")
            #expect(result.err.hasPrefix("todo: no sync server answers at http://127.0.0.1:\(port); is modelkit-sync-server running there? ("))
            #expect(result.err.split(separator: "\n").count == 1)
        }
    }

    @MainActor
    @Test func watchPrintsEachChangeMadeOnAnotherStore() async throws {
        let server = try LoopbackSyncServer()
        let todo = try CommandLineTool.todo()
        let (a, b) = (todo.store("a.store"), todo.store("b.store"))
        let printed = PrintedLines()
        let watch = try TodoCommand(arguments: ["--store", b, "watch", "--server", server.url])
        let running = Task { try await watch.run(printed.output) }
        #expect(try await printed.next() == "watching \(server.url) (Ctrl-C stops)")

        for (edit, line) in [(["add", "Buy milk"], "+ Buy milk"), (["toggle", "Buy milk"], "x Buy milk"), (["remove", "Buy milk"], "- Buy milk")] {
            #expect(try await todo.running(["--store", a] + edit).status == 0)
            #expect(try await todo.running("--store", a, "sync", "--server", server.url).status == 0)
            #expect(try await printed.next() == line)
        }
        running.cancel()
        try await running.value
        #expect(printed.problems.isEmpty)
    }

    @Test func interruptingWatchEndsItWithStatusZero() async throws {
        let server = try LoopbackSyncServer()
        let todo = try CommandLineTool.todo()
        let process = try todo.start(["--store", todo.store("a.store"), "watch", "--server", server.url])
        let firstLine = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try process.standardOutput!.readLine() })
            }
        }
        #expect(firstLine == "watching \(server.url) (Ctrl-C stops)")
        process.send(SIGINT)
        #expect(await process.exit() == .exit(0))
    }
}

#endif

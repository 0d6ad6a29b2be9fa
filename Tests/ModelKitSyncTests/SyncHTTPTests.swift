import Foundation
import ModelKit
@testable import ModelKitSync
import Synchronization
import TestSupport
import Testing

/// The to-do list's model, as `modelkit-sync-server` serves it.
@Model final class TodoItem {
    var title: String
    var isComplete: Bool
    init(title: String, isComplete: Bool = false) {
        self.title = title
        self.isComplete = isComplete
    }
}

/// Sync over HTTP on loopback: the handler behind the small server, and the runnable server in a
/// process of its own, killed and started again.
@Suite struct SyncHTTPTests {
    @Test(arguments: ServerKind.available)
    func devicesSyncOverHTTPEndToEnd(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: world.server))
        http.start()
        defer { http.stop() }
        let url = URL(string: "http://127.0.0.1:\(http.port)/sync")!
        let a = try world.device(through: HTTPSyncTransport(url: url))
        let b = try world.device(through: HTTPSyncTransport(url: url))
        let note = Note(title: "over HTTP")
        a.context.insert(note)
        note.tags = [Tag(name: "web")]
        for seed in 0..<3 { a.context.insert(Sample(name: "s\(seed)", seed: seed)) }
        try a.context.save()
        #expect(try await a.sync().pushed == 5)
        #expect(try await b.sync().pulled == 5)
        #expect(try b.all(Note.self).first?.tags.map(\.name) == ["web"])
        let sent = try a.all(Sample.self, sortBy: [SortDescriptor(\.name)]).map(\.photo)
        #expect(try b.all(Sample.self, sortBy: [SortDescriptor(\.name)]).map(\.photo) == sent)
    }

    @Test func httpCarriesTheServersRefusalsAsTheirErrors() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelKitSyncHTTP-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = try ModelContainer(for: Schema(syncedTypes), configurations: [ModelConfiguration(url: directory.appendingPathComponent("s.store"))])
        let server = try SyncServer(container: container) { request in
            guard request.credentials["authorization"] == "Bearer yes" else { throw SyncError(.unauthorized, "no") }
        }
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server))
        http.start()
        defer { http.stop() }
        let url = URL(string: "http://127.0.0.1:\(http.port)/sync")!
        let device = try ModelContainer(for: Schema(syncedTypes), configurations: [ModelConfiguration(url: directory.appendingPathComponent("d.store"))])
        do {
            try await SyncClient(container: device, transport: HTTPSyncTransport(url: url, headers: ["Authorization": "Bearer no"])).sync()
            Issue.record("refused credentials went through")
        } catch let error as SyncError {
            #expect(error.code == .unauthorized)
        }
        try await SyncClient(container: device, transport: HTTPSyncTransport(url: url, headers: ["Authorization": "Bearer yes"])).sync()
        let handler = SyncHTTPHandler(server: server)
        let garbage = await handler.handle(method: "POST", path: "/sync/push", headers: [:], body: Data("{not json".utf8))
        #expect(garbage.status == 400)
        let unknown = await handler.handle(method: "POST", path: "/sync/other", headers: [:], body: Data())
        #expect(unknown.status == 404)
        // Nothing listens here: the transport fails, saying so.
        let closed = try SyncHTTPServer(handler: handler)
        let port = closed.port
        closed.stop()
        do {
            try await SyncClient(container: device, transport: HTTPSyncTransport(url: URL(string: "http://127.0.0.1:\(port)/sync")!)).sync()
            Issue.record("a closed port answered")
        } catch let error as SyncError {
            #expect(error.code == .transportFailed)
        }
    }

    @Test func theRunnableServerSyncsDevicesAndSurvivesARestart() async throws {
        let tool = try CommandLineTool("modelkit-sync-server")
        let store = tool.home.appendingPathComponent("server.store")
        let a = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: tool.home.appendingPathComponent("a.store")))
        let b = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: tool.home.appendingPathComponent("b.store")))
        var server = try RunningServer(tool: tool, store: store)
        let context = ModelContext(a)
        context.insert(TodoItem(title: "Buy milk"))
        try context.save()
        let transport = HTTPSyncTransport(url: server.url, headers: ["Authorization": "Bearer s3cret"])
        try await SyncClient(container: a, transport: transport).sync()

        // Killed and started again: the store has everything, and devices carry on.
        server.kill()
        context.insert(TodoItem(title: "Walk the dog"))
        try context.save()
        await #expect(throws: SyncError.self) { try await SyncClient(container: a, transport: transport).sync() }
        server = try RunningServer(tool: tool, store: store, port: server.port)
        defer { server.kill() }
        try await SyncClient(container: a, transport: transport).sync()
        try await SyncClient(container: b, transport: transport).sync()
        #expect(try ModelContext(b).fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["Buy milk", "Walk the dog"])
        let stranger = HTTPSyncTransport(url: server.url)
        await #expect(throws: SyncError.self) { try await SyncClient(container: b, transport: stranger).sync() }
    }
}

/// `modelkit-sync-server` in a process of its own.
struct RunningServer {
    let process: ChildProcess
    let port: UInt16
    var url: URL { URL(string: "http://127.0.0.1:\(port)/sync")! }

    init(tool: CommandLineTool, store: URL, port: UInt16 = 0) throws {
        process = try tool.start(["--store", store.path, "--port", String(port), "--token", "s3cret"])
        let line = try process.standardOutput!.readLine()
        guard let reported = line.split(separator: " ").last.flatMap({ UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            process.send(SIGKILL)
            process.waitUntilExit()
            throw SyncError(.transportFailed, "the server printed \(line)")
        }
        self.port = reported
    }

    func kill() {
        process.send(SIGKILL)
        process.waitUntilExit()
    }
}

/// Bodies travel gzip-compressed, and a corrupt or oversized one is refused.
@Suite struct SyncCompressionTests {
    @Test func gzipBodiesAreTakenAndCorruptOrOversizedOnesRefused() async throws {
        let world = try SyncWorld()
        let handler = SyncHTTPHandler(server: world.server, maximumBodySize: 1 << 20)
        let envelope = SyncEnvelope(schema: world.server.schema.fingerprint, device: "d")
        let pull = try JSONEncoder().encode(SyncPullRequest(envelope: envelope, cursor: nil))
        let plain = await handler.handle(method: "POST", path: "/sync/pull", headers: [:], body: pull)
        #expect(plain.status == 200 && plain.headers["Content-Encoding"] == nil)
        let compressed = await handler.handle(
            method: "POST", path: "/sync/pull", headers: ["Content-Encoding": "gzip", "Accept-Encoding": "gzip"],
            body: try Gzip.compress(pull))
        #expect(compressed.status == 200)
        let answer = compressed.headers["Content-Encoding"] == "gzip" ? try Gzip.decompress(compressed.body, limit: 1 << 20) : compressed.body
        #expect(try JSONDecoder().decode(SyncPullResponse.self, from: answer).isFullDownload)
        let corrupt = await handler.handle(method: "POST", path: "/sync/pull", headers: ["Content-Encoding": "gzip"], body: Data([0x1f, 0x8b, 1, 2, 3]))
        #expect(corrupt.status == 400)
        let bomb = try Gzip.compress(Data(count: 4 << 20))
        let refused = await handler.handle(method: "POST", path: "/sync/pull", headers: ["Content-Encoding": "gzip"], body: bomb)
        #expect(refused.status == 413)
    }
}

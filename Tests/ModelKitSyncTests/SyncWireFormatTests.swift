import Foundation
import ModelKit
@testable import ModelKitSync
import Synchronization
import Testing

/// The pull page's two wire forms, JSON and the compact binary one HTTP negotiates: both carry
/// every value exactly, the binary reader survives any bytes, and pulled new rows written in bulk
/// are announced as a save's.
@Suite struct SyncWireFormatTests {
    /// A page holding every kind of sync value, at its edges.
    static let everyValue: SyncPullResponse = {
        let values: [SyncValue] = [
            .null, .integer(0), .integer(-1), .integer(Int64.min), .integer(Int64.max), .real(-0.0), .real(.nan),
            .real(Double(bitPattern: 0x7FF0_0000_0000_0001)), .real(.infinity), .real(-.leastNonzeroMagnitude), .real(1.5),
            .text(""), .text("é and e\u{301}, 🙂, \u{0}, \"quoted\""), .blob(Data()), .blob(Data((0...255).map(UInt8.init))),
            .reference("f-1"), .references([]), .references(["a", "b-2", "c"]),
        ]
        let fields = Dictionary(uniqueKeysWithValues: values.enumerated().map { index, value in
            ("p\(index)", SyncField(value: value, clock: index % 2 == 0 ? HybridLogicalClock.zero.description : "001700000000000-000007-d"))
        })
        return SyncPullResponse(
            changes: [
                SyncChange(entity: "Sample", id: "s-1", fields: fields), SyncChange(entity: "Note", id: "n-1", deleted: true),
                SyncChange(entity: "Note", id: "n-2", leftScope: true), SyncChange(entity: "Sample", id: "s-2", fields: ["p0": fields["p12"]!]),
            ],
            cursor: "s:7:0:42", hasMore: true, isFullDownload: true, merged: ["old": "new", "older": "new"])
    }()

    @Test func bothFormatsRoundTripEverySyncValue() throws {
        let json = try SyncJSON.decoder.decode(SyncPullResponse.self, from: SyncJSON.encoder.encode(Self.everyValue))
        #expect(json == Self.everyValue)
        let binary = try SyncBinaryPage.decode(SyncBinaryPage.encode(Self.everyValue))
        #expect(binary == Self.everyValue)
        let empty = SyncPullResponse(changes: [], cursor: "h:0", hasMore: false, isFullDownload: false)
        #expect(try SyncBinaryPage.decode(SyncBinaryPage.encode(empty)) == empty)
    }

    @Test(arguments: [HTTPSyncTransport.PageFormat.json, .binary])
    func bothFormatsSyncEveryAttributeTypeOverHTTP(_ format: HTTPSyncTransport.PageFormat) async throws {
        let world = try SyncWorld()
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: world.server))
        http.start()
        defer { http.stop() }
        let url = URL(string: "http://127.0.0.1:\(http.port)/sync")!
        let a = try world.device()
        let b = try Device(
            url: world.directory.appendingPathComponent("b.store"), types: syncedTypes, transport: HTTPSyncTransport(url: url, pageFormat: format),
            keeping: world)
        let folder = Folder(name: "f")
        let note = Note(title: "n", body: "b", pinned: true, folder: folder)
        a.context.insert(note)
        note.tags = [Tag(name: "x"), Tag(name: "y")]
        for seed in 0..<4 { a.context.insert(Sample(name: "s\(seed)", seed: seed)) }
        a.context.insert(TodoTask(title: "t", done: true))
        try a.context.save()
        try await a.sync()
        #expect(try await b.sync().pulled == 9)
        func samples(_ device: Device) throws -> [[String]] {
            try device.all(Sample.self, sortBy: [SortDescriptor(\.name)]).map { sample in
                [
                    sample.name, "\(sample.int)", "\(sample.int8)", "\(sample.uint64)", "\(sample.double.bitPattern)", "\(sample.float.bitPattern)",
                    "\(sample.flag)", "\(sample.date.timeIntervalSinceReferenceDate.bitPattern)", sample.data.base64EncodedString(), sample.uuid.uuidString,
                    sample.url.absoluteString, "\(sample.decimal)", sample.optional ?? "nil", sample.list.joined(separator: "|"),
                    "\(sample.point.x),\(sample.point.y)", sample.kind.rawValue, sample.photo.base64EncodedString(),
                ]
            }
        }
        #expect(try samples(b) == samples(a))
        let pulled = try #require(try b.all(Note.self).first)
        #expect(pulled.folder?.name == "f" && pulled.tags.map(\.name).sorted() == ["x", "y"] && pulled.pinned)
        #expect(try b.all(TodoTask.self).map(\.done) == [true])
    }

    @Test func theHandlerAnswersAPullInTheFormItsAcceptNames() async throws {
        let world = try SyncWorld()
        let a = try world.device()
        for index in 0..<50 { a.context.insert(Counter(name: "c\(index)", value: index)) }
        try a.context.save()
        try await a.sync()
        let handler = SyncHTTPHandler(server: world.server)
        let body = try SyncJSON.encoder.encode(SyncPullRequest(envelope: SyncEnvelope(schema: world.server.schema.fingerprint, device: "d"), cursor: nil))
        let plain = await handler.handle(method: "POST", path: "/sync/pull", headers: [:], body: body)
        #expect(plain.headers["Content-Type"] == "application/json")
        let binary = await handler.handle(
            method: "POST", path: "/sync/pull", headers: ["Accept": "application/vnd.modelkit-sync, application/json"], body: body)
        #expect(binary.status == 200 && binary.headers["Content-Type"] == "application/vnd.modelkit-sync")
        let fromJSON = try SyncJSON.decoder.decode(SyncPullResponse.self, from: plain.body)
        #expect(try SyncBinaryPage.decode(binary.body) == fromJSON)
        #expect(fromJSON.changes.count == 50 && binary.body.count < plain.body.count / 2)
    }

    /// Encoded pages, cut, flipped, stretched and spliced at random: each decodes, or throws a
    /// ``SyncError`` with `malformedMessage`; none crashes or allocates past its bytes.
    @Test func mutatedBinaryPagesDecodeOrThrowMalformed() throws {
        let seed = ProcessInfo.processInfo.environment["SYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("SyncWireFormatTests seed: \(seed) (replay with SYNC_SEED=\(seed))")
        var random = SyncConvergenceTests.Generator(state: seed)
        let pages = [Self.everyValue, SyncPullResponse(changes: [], cursor: "h:1", hasMore: false, isFullDownload: false)].map {
            [UInt8](SyncBinaryPage.encode($0))
        }
        var decoded = 0
        for round in 0..<20_000 {
            var bytes = pages[round % pages.count]
            for _ in 0...Int.random(in: 0..<4, using: &random) {
                let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0 where !bytes.isEmpty: bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                case 1 where !bytes.isEmpty: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 2: bytes.removeLast(min(bytes.count, Int.random(in: 1...16, using: &random)))
                // A length past anything: a varint of all ones.
                case 3: bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], at: at)
                case 4: bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
                default:
                    let other = pages[Int.random(in: 0..<pages.count, using: &random)]
                    bytes = Array(bytes[..<at]) + other[Int.random(in: 0..<other.count, using: &random)...]
                }
            }
            do {
                _ = try SyncBinaryPage.decode(Data(bytes))
                decoded += 1
            } catch let error as SyncError {
                #expect(error.code == .malformedMessage, "seed \(seed), round \(round)")
            }
        }
        // Mutations that keep a page whole (a flipped bit in a value) decode: the test reaches them.
        #expect(decoded > 0, "seed \(seed)")
    }

    @Test func pulledNewRowsWrittenInBulkAreAnnouncedAsASaveIs() async throws {
        let world = try SyncWorld()
        let a = try world.device()
        for index in 0..<300 { a.context.insert(Counter(name: "c\(index)", value: index)) }
        try a.context.save()
        try await a.sync()
        let b = try world.device()
        let reader = ModelContext(b.container)
        #expect(try reader.fetchCount(FetchDescriptor<Counter>()) == 0)
        let inserted = Mutex<[PersistentIdentifier]>([])
        let container = b.container
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { notification in
            guard let context = notification.object as? ModelContext, context.container === container else { return }
            let ids = notification.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
            inserted.withLock { $0 += ids }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        #expect(try await b.sync().pulled == 300)
        let counters = try reader.fetch(FetchDescriptor<Counter>(sortBy: [SortDescriptor(\.value)]))
        #expect(counters.map(\.name) == (0..<300).map { "c\($0)" })
        #expect(Set(inserted.withLock { $0 }) == Set(counters.map(\.persistentModelID)))
        let history = try ModelContext(b.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let synced = history.filter { $0.author == SyncClient.author }.flatMap(\.changes).filter {
            if case .insert = $0 { true } else { false }
        }
        #expect(Set(synced.map(\.changedPersistentIdentifier)) == Set(counters.map(\.persistentModelID)))
        // The rows are synced rows like any other: an edit goes back to the server.
        counters[0].value = -1
        try reader.save()
        #expect(try await b.sync().pushed == 1)
        #expect(try await a.sync().pulled == 1)
        #expect(try a.all(Counter.self).first { $0.name == "c0" }?.value == -1)
    }
}

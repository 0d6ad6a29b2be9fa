import Foundation
import ModelKit
@testable import ModelKitSync
import Testing

/// Devices running live over HTTP through a proxy that cuts their connections at random, mid
/// request and mid response, while they save: once the cuts stop, every device and the server
/// hold the same notes, each insert once and each note's last edit.
@Suite struct SyncDroppedConnectionTests {
    @Test func devicesRunningThroughDroppedConnectionsConvergeWithNothingLostOrDoubled() async throws {
        let seed = ProcessInfo.processInfo.environment["MODELKIT_DROP_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("SyncDroppedConnectionTests seed: \(seed) (replay with MODELKIT_DROP_SEED=\(seed))")
        var random = SyncConvergenceTests.Generator(state: seed)
        let world = try SyncWorld()
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: world.server))
        http.start()
        defer { http.stop() }
        let proxy = try LossyProxy(to: http.port, seed: random.next())
        defer { proxy.stop() }
        let devices = try (0..<3).map { index in
            try Device(url: world.directory.appendingPathComponent("d\(index).store"), types: syncedTypes, transport: SocketSyncTransport(port: proxy.port), keeping: world)
        }
        // Held pulls well within the transport's 10-second read timeout.
        for device in devices { device.client.pullWait = .seconds(2) }
        // What must hold at the end: each note by its title, with its last body, or gone. A
        // device edits and deletes only the notes it inserted, so every note's last write is known.
        var expected: [String: String] = [:]
        var owned: [[String]] = devices.map { _ in [] }

        try await SyncLiveTests.running(devices) {
            for step in 0..<60 {
                let index = Int.random(in: 0..<devices.count, using: &random)
                let device = devices[index]
                let roll = Int.random(in: 0..<10, using: &random)
                if roll < 5 || owned[index].isEmpty {
                    let title = "d\(index)-\(step)"
                    device.context.insert(Note(title: title, body: "inserted"))
                    owned[index].append(title)
                    expected[title] = "inserted"
                } else {
                    let title = owned[index][Int.random(in: 0..<owned[index].count, using: &random)]
                    let note = try #require(try device.context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.title == title })).first)
                    if roll < 8 {
                        note.body = "edit \(step)"
                        expected[title] = note.body
                    } else {
                        device.context.delete(note)
                        owned[index].removeAll { $0 == title }
                        expected[title] = nil
                    }
                }
                try device.context.save()
                // Paced by the traffic: the next save once the proxy has carried more bytes.
                let chunks = proxy.counts.chunks
                try await SyncLiveTests.eventually("the proxy to carry the save of step \(step)") { proxy.counts.chunks > chunks }
            }
            proxy.isDropping = false
            let server = try world.serverContainer()
            let want = expected.map { "\($0.key)=\($0.value)" }.sorted()
            for (index, device) in devices.enumerated() {
                do {
                    try await SyncLiveTests.eventually("device \(index) to hold every note once, with its last edit") {
                        try Self.notes(in: device.container) == want && device.client.status.pendingChanges == 0
                    }
                } catch {
                    // What a failure needs to be understood: what differs, and what the client says.
                    let held = try Self.notes(in: device.container)
                    let status = device.client.status
                    print(
                        "SyncDroppedConnectionTests: device \(index) (seed \(seed)) lacks \(Set(want).subtracting(held).sorted()),",
                        "also has \(Set(held).subtracting(want).sorted()),",
                        "twice \(Dictionary(grouping: held, by: { $0 }).filter { $1.count > 1 }.keys.sorted());",
                        "the server lacks \(Set(want).subtracting(try Self.notes(in: server)).sorted());",
                        "syncing \(status.isSyncing), pending \(status.pendingChanges),",
                        "last error \(status.lastError.map { "\($0)" } ?? "none"), last sync \(status.lastSyncDate.map { "\($0)" } ?? "never")")
                    throw error
                }
            }
            #expect(try Self.notes(in: server) == want)
        }
        #expect(proxy.counts.cuts > 0)
        print("SyncDroppedConnectionTests: \(proxy.counts.cuts) connections cut of \(proxy.counts.chunks) chunks carried")
    }

    /// The store's notes as `title=body`, sorted: a title saved twice shows twice.
    private static func notes(in container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Note>()).map { "\($0.title)=\($0.body)" }.sorted()
    }
}

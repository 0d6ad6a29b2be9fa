import Foundation
import ModelKit
import ModelKitSync
import TestSupport
import Testing

/// A device and a server, each in a process of its own, killed at random points of saves and
/// syncs and started again: at the end nothing is lost and nothing doubled.
@Suite struct SyncCrashTests {
    @Test func devicesAndServersKilledMidSyncLoseNothingAndDoubleNothing() async throws {
        let seed = ProcessInfo.processInfo.environment["SYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("SyncCrashTests seed: \(seed) (replay with SYNC_SEED=\(seed))")
        var random = SyncConvergenceTests.Generator(state: seed)
        let serverTool = try CommandLineTool("modelkit-sync-server")
        let deviceTool = try CommandLineTool("modelkit-sync-crash-device")
        let serverStore = serverTool.home.appendingPathComponent("server.store")
        let deviceStore = deviceTool.home.appendingPathComponent("device.store")
        let count = 60
        var server = try RunningServer(tool: serverTool, store: serverStore)
        let port = server.port
        func startDevice() throws -> ChildProcess {
            try deviceTool.start([deviceStore.path, server.url.absoluteString, String(count)], standardOutput: .discard)
        }
        var device = try startDevice()
        var kills = 0
        for _ in 0..<12 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...250, using: &random)))
            if Bool.random(using: &random) {
                device.send(SIGKILL)
                device.waitUntilExit()
                device = try startDevice()
            } else {
                server.kill()
                server = try RunningServer(tool: serverTool, store: serverStore, port: port)
            }
            kills += 1
        }
        // Left alone, the device finishes: every item made and synced.
        let deadline = ContinuousClock.now + .seconds(60)
        while device.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!device.isRunning && device.waitUntilExit() == .exit(0), "the device did not finish (seed \(seed))")
        server.kill()
        let expected = (0..<count).map { "item-\($0)" }.sorted()
        for store in [serverStore, deviceStore] {
            let container = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: store))
            let titles = try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title).sorted()
            #expect(titles == expected, "\(store.lastPathComponent) after \(kills) kills (seed \(seed))")
        }
    }
}

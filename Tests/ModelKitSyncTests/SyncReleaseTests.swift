import Foundation
import ModelKit
import ModelKitSync
import Testing

/// A device's container, client and store go away when the app lets go of them.
@Suite struct SyncReleaseTests {
    @Test func aReleasedDeviceFreesItsContainerAndClient() async throws {
        try await Self.expectFreed(after: { device in
            device.context.insert(Note(title: "kept"))
            try device.context.save()
            try await device.sync()
        })
    }

    @Test func aDeviceThatRanLiveFreesItsContainerAndClientOnceReleased() async throws {
        try await Self.expectFreed(after: { device in
            let live = Task { [client = device.client] in try await client.run() }
            device.context.insert(Note(title: "kept"))
            try device.context.save()
            for await status in device.client.statusUpdates where status.lastSyncDate != nil && status.pendingChanges == 0 { break }
            live.cancel()
            _ = await live.result
        })
    }

    /// Makes a device, hands it to `use`, lets go of it, and expects its container and client
    /// to be freed.
    private static func expectFreed(after use: (Device) async throws -> Void) async throws {
        let world = try SyncWorld()
        weak var container: ModelContainer?
        weak var client: SyncClient?
        do {
            let device = try world.device()
            container = device.container
            client = device.client
            try await use(device)
        }
        // A change notice under way may hold the client a moment; a cycle would hold it for good.
        let deadline = ContinuousClock.now + .seconds(60)
        while client != nil || container != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(client == nil, "the client outlived its device")
        #expect(container == nil, "the container outlived its device and client")
    }
}

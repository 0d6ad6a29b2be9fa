import Foundation
import ModelKit
import ModelKitSync
import Testing

/// The README's sync lines, as written there, over HTTP on loopback.
@Test func readmeSyncTourWorks() async throws {
    let world = try SyncWorld()
    let serverContainer = try world.serverContainer()
    let deviceContainer = try ModelContainer(
        for: Schema(syncedTypes), configurations: [ModelConfiguration(url: world.directory.appendingPathComponent("readme.store"))])
    let context = ModelContext(deviceContainer)
    context.insert(Note(title: "from the README"))
    try context.save()

    var policies = SyncPolicies()  // every property: last edit wins
    policies.set(\Note.title, .serverWins)
    let server = try SyncServer(container: serverContainer, policies: policies)
    let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server))
    http.start()
    defer { http.stop() }
    let serverURL = URL(string: "http://127.0.0.1:\(http.port)/sync")!
    let client = try SyncClient(container: deviceContainer, transport: HTTPSyncTransport(url: serverURL))
    let report = try await client.sync()  // report.pushed, .pulled, .conflicts, .rejected
    #expect(report.pushed == 1 && report.pulled == 0 && report.conflicts == 0 && report.rejected == 0 && report.rejections.isEmpty)
    #expect(try ModelContext(serverContainer).fetch(FetchDescriptor<Note>()).map(\.title) == ["from the README"])
}

import Foundation
@testable import ModelKitSync
import Testing

/// Requests no client of this package sends, as fuzzing found them: each is refused, and the
/// server neither crashes nor changes its store.
@Suite struct SyncHostileRequestTests {
    @Test func aPullCursorWithANegativeRootEntityIsRefused() async throws {
        let world = try SyncWorld()
        let handler = SyncHTTPHandler(server: world.server)
        let envelope = SyncEnvelope(schema: world.server.schema.fingerprint, device: "d")
        let body = try JSONEncoder().encode(SyncPullRequest(envelope: envelope, cursor: "s:0:-1:0"))
        let response = await handler.handle(method: "POST", path: "/sync/pull", headers: [:], body: body)
        #expect(response.status == 400)
    }
}

/// How a device reaches the server: in process (``SyncServer`` is one) or over HTTP
/// (``HTTPSyncTransport``). Implement it for another channel; the messages are `Codable`.
public protocol SyncTransport: Sendable {
    /// Sends local changes; the server applies them all or none.
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse
    /// Asks for the server's changes after a cursor.
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse
}

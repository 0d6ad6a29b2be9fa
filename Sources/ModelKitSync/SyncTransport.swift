/// How a device reaches the server: in process (``SyncServer`` is one) or over HTTP
/// (``HTTPSyncTransport``). Implement it for another channel; the messages are `Codable`.
public protocol SyncTransport: Sendable {
    /// Sends local changes; the server applies them all or none.
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse
    /// Asks for the server's changes after a cursor.
    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse
    /// Whether the server honours a pull's ``SyncPullRequest/wait``, holding it until new changes
    /// arrive (a long poll). ``SyncClient/run()`` then pulls as soon as the server has news;
    /// otherwise it polls every ``SyncClient/pollInterval``. False unless a transport says so.
    var supportsWaiting: Bool { get }
}

extension SyncTransport {
    public var supportsWaiting: Bool { false }
}

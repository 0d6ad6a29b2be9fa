/// A sync that could not be done, saying what happened and what to do. Match on ``code``:
///
/// ```swift
/// do { try await client.sync() }
/// catch let error as SyncError where error.code == .unauthorized { signIn() }
/// ```
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, Codable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The device's models and the server's are not the same schema; nothing moved.
        public static let schemaMismatch = Code(rawValue: "schemaMismatch")
        /// The server's authorization hook refused the request; nothing changed.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// The request did not reach the server, or its answer did not come back. Syncing again
        /// is safe: a push is applied once however often it is sent.
        public static let transportFailed = Code(rawValue: "transportFailed")
        /// The request or response is not the wire format: another version, or corrupt.
        public static let malformedMessage = Code(rawValue: "malformedMessage")
        /// The device's cursor is older than the server's tombstone horizon. The client answers
        /// it with a full download that keeps the device's unpushed changes; a transport only
        /// sees it when it speaks to the server directly.
        public static let tooFarBehind = Code(rawValue: "tooFarBehind")
        /// The container cannot sync: more than one store, a store that cannot save.
        public static let unsupportedContainer = Code(rawValue: "unsupportedContainer")
        /// The server failed to apply the request; nothing of it was applied. The message has
        /// the server's error.
        public static let serverFailed = Code(rawValue: "serverFailed")
        /// The device's own store failed during a sync (a disk error, a locked file); the failed
        /// step kept none of its changes. ``SyncClient/status`` reports it; ``SyncClient/sync()``
        /// throws the store's error itself.
        public static let deviceFailed = Code(rawValue: "deviceFailed")

        public var description: String { rawValue }
    }

    public let code: Code
    /// What happened and what to do, for people.
    public let message: String
    /// How long the server asked the device to wait before trying again, in seconds: an HTTP
    /// answer's `Retry-After`. ``SyncClient/run()`` waits at least this long before its next
    /// attempt. Nil when the server did not say.
    public let retryAfter: Double?

    public init(_ code: Code, _ message: String, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "SyncError.\(code): \(message)" }
}

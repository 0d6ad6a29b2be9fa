import Dispatch
import Foundation
import ModelKit

/// The authoritative store that devices sync with: a container on PostgreSQL (any number of
/// server instances on one database, each a `SyncServer` of its own) or on SQLite.
///
/// ```swift
/// var policies = SyncPolicies()
/// policies.set(\Note.title, .serverWins)
/// let server = try SyncServer(container: container, policies: policies)
/// let client = try SyncClient(container: deviceContainer, transport: server)   // in process
/// ```
///
/// Pushes are applied in one transaction each, all or nothing, once however often they are
/// sent; conflicting fields are resolved by ``policies``. Pulls read the store's history, so
/// the order of changes comes from the database, not from an instance. Mount it over HTTP with
/// ``SyncHTTPHandler``.
public final class SyncServer: SyncTransport, Sendable {
    /// The server's store.
    public let container: ModelContainer
    /// The conflict rules the server applies.
    public let policies: SyncPolicies
    let schema: SyncSchema
    private let authorize: (@Sendable (SyncAuthorizationRequest) throws -> Void)?
    private let queue = DispatchQueue(label: "ModelKitSync.SyncServer", attributes: .concurrent)

    /// A server for `container`'s store, resolving conflicts by `policies`, running
    /// `authorize` before each request (throw to refuse it; nothing then changes).
    /// - Throws: ``SyncError`` with ``SyncError/Code/unsupportedContainer`` for a container of
    ///   several stores; what creating sync's tables in the store throws.
    public init(
        container: ModelContainer, policies: SyncPolicies = SyncPolicies(),
        authorize: (@Sendable (SyncAuthorizationRequest) throws -> Void)? = nil
    ) throws {
        try SyncClient.checkSyncable(container)
        self.container = container
        self.policies = policies
        self.authorize = authorize
        schema = SyncSchema(container.schema)
        try ModelContext(container).replicaWrite { try SyncTables.create(in: $0) }
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try check(request.envelope, kind: .push)
        return try await run { try ServerPush(server: self, request: request).apply() }
    }

    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try check(request.envelope, kind: .pull)
        return try await run { try ServerPull(server: self, request: request).page() }
    }

    /// Refuses a request of another wire version, another schema, or that the hook refuses.
    private func check(_ envelope: SyncEnvelope, kind: SyncAuthorizationRequest.Kind) throws {
        guard envelope.protocolVersion == SyncEnvelope.currentProtocolVersion else {
            throw SyncError(
                .malformedMessage,
                "the device speaks sync protocol \(envelope.protocolVersion) and this server \(SyncEnvelope.currentProtocolVersion): update the older side")
        }
        guard envelope.schema == schema.fingerprint else {
            throw SyncError(
                .schemaMismatch,
                "the device's models (schema \(envelope.schema)) are not the server's (\(schema.fingerprint)); nothing moved. Sync a device and a server with the same model classes")
        }
        if let authorize {
            do {
                try authorize(SyncAuthorizationRequest(kind: kind, device: envelope.device, credentials: envelope.credentials))
            } catch let error as SyncError {
                throw error
            } catch {
                throw SyncError(.unauthorized, "the server refused the \(kind) request: \(error)")
            }
        }
    }

    /// Runs `work` on a thread where blocking on the database is allowed, off Swift's
    /// cooperative pool, and suspends the caller meanwhile.
    private func run<R: Sendable>(_ work: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: try work())
                } catch let error as SyncError {
                    continuation.resume(throwing: error)
                } catch {
                    continuation.resume(throwing: SyncError(.serverFailed, "the server could not apply the request, and applied none of it: \(error)"))
                }
            }
        }
    }
}

/// A request as the server's authorization hook sees it.
public struct SyncAuthorizationRequest: Sendable {
    public enum Kind: String, Sendable, CustomStringConvertible {
        case push, pull
        public var description: String { rawValue }
    }

    /// Whether the device sends changes or asks for them.
    public let kind: Kind
    /// The device's identifier, as it reports it.
    public let device: String
    /// The request's credentials: what the device set, and over HTTP the request's headers,
    /// lowercased (`authorization`, …).
    public let credentials: [String: String]
}

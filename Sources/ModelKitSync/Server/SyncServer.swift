import Foundation
import ModelKit
import Synchronization

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
/// the order of changes comes from the database, not from an instance. A pull with a
/// ``SyncPullRequest/wait`` at the end of history is held, without a thread, until the store's
/// change feed hears a commit (by this instance, another one on the same database, or another
/// process on a SQLite file), for a minute at most. Mount it over HTTP with ``SyncHTTPHandler``.
public final class SyncServer: SyncTransport, Sendable {
    /// The server's store.
    public let container: ModelContainer
    /// The conflict rules the server applies.
    public let policies: SyncPolicies
    /// Which rows each user reads and writes; empty for a server whose users share everything.
    public let scopes: SyncScopes
    /// The scopes as the schema lays them out; nil without scopes.
    let scopeLayout: ServerScope.Layout?
    /// The versions of the container's migration plan devices sync on, and those they cannot.
    public let versions: SyncVersions
    let schema: SyncSchema
    /// The user a request acts for, or a refusal; nil lets every request through as no one.
    private let identify: (@Sendable (SyncAuthorizationRequest) throws -> String?)?
    /// The store's commits as waiting pulls hear them; made by the first of them.
    private let commits = Mutex<CommitSignal?>(nil)
    /// The pages of held pulls, read once a commit.
    private let heldPages = HeldPages()
    /// The longest a pull is held, in seconds, whatever its ``SyncPullRequest/wait`` asks.
    static let maximumWait: Double = 60

    /// A server for `container`'s store, resolving conflicts by `policies`, running
    /// `authorize` before each request (throw to refuse it; nothing then changes).
    /// - Throws: ``SyncError`` with ``SyncError/Code/unsupportedContainer`` for a container of
    ///   several stores; what creating sync's tables in the store throws.
    public convenience init(
        container: ModelContainer, policies: SyncPolicies = SyncPolicies(),
        authorize: (@Sendable (SyncAuthorizationRequest) throws -> Void)? = nil
    ) throws {
        var identify: (@Sendable (SyncAuthorizationRequest) throws -> String?)?
        if let authorize {
            identify = { request in
                try authorize(request)
                return nil
            }
        }
        try self.init(container: container, policies: policies, scopes: SyncScopes(), identifying: identify)
    }

    /// A server for `container`'s store whose users each read and write what `scopes` admit.
    /// `identify` runs before each request and returns the user it acts for (throw to refuse
    /// it; nothing then changes).
    ///
    /// ```swift
    /// let server = try SyncServer(container: container, policies: policies, scopes: scopes) { request in
    ///     try verify(request.credentials["authorization"])   // -> String, the user's id
    /// }
    /// ```
    /// - Throws: ``SyncError`` with ``SyncError/Code/unsupportedContainer`` for a container of
    ///   several stores or a scope on a model the container lacks; what creating sync's tables
    ///   in the store throws.
    public convenience init(
        container: ModelContainer, policies: SyncPolicies = SyncPolicies(), scopes: SyncScopes,
        identify: @escaping @Sendable (SyncAuthorizationRequest) throws -> String
    ) throws {
        try self.init(container: container, policies: policies, scopes: scopes, identifying: identify)
    }

    private init(
        container: ModelContainer, policies: SyncPolicies, scopes: SyncScopes,
        identifying identify: (@Sendable (SyncAuthorizationRequest) throws -> String?)?
    ) throws {
        try SyncClient.checkSyncable(container)
        self.container = container
        self.policies = policies
        self.scopes = scopes
        self.identify = identify
        schema = SyncSchema(container.schema)
        scopeLayout = ServerScope.Layout(scopes, schema: schema)
        versions = SyncVersions(container: container, schema: schema)
        for entity in scopes.rules.keys.sorted() where schema.entities[entity] == nil {
            throw SyncError(.unsupportedContainer, "a scope is set on \(entity), which is not a model of the server's container; scope the container's models")
        }
        try ModelContext(container).replicaWrite { try SyncTables.create(in: $0) }
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let (user, shape) = try check(request.envelope, kind: .push)
        return try await run {
            try VersionedSync(server: self, shape: shape).push(request) { request in
                try PushCheck(schema: self.schema).check(request)
                return try ServerPush(server: self, request: request, user: user).apply()
            }
        }
    }

    /// The server honours a pull's ``SyncPullRequest/wait``.
    public var supportsWaiting: Bool { true }

    /// The page after the request's cursor. With a ``SyncPullRequest/wait``, a page with nothing
    /// after the cursor is held until the store hears a commit that brings the device something,
    /// or the wait ends (then it is answered empty, with the cursor moved past what the device
    /// need not see), or the task is cancelled.
    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        // A device catching up after a full download needs the end of the catch-up at once.
        guard let wait = request.wait, wait > 0, wait.isFinite, request.includesOwnChanges != true else { return try await page(request) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(min(wait, Self.maximumWait) * 1_000))
        let signal = commits.withLock { signal in
            if let signal { return signal }
            let made = CommitSignal(container: container)
            signal = made
            return made
        }
        var request = request
        while true {
            // Read before the page: a commit after the read moves it, and the wait ends at once.
            let generation = signal.generation
            let response = try await heldPage(request, generation: generation)
            guard response.changes.isEmpty, response.merged.isEmpty, !response.hasMore, !Task.isCancelled,
                ContinuousClock.now < deadline
            else { return response }
            request.cursor = response.cursor
            await signal.wait(after: generation, until: deadline)
        }
    }

    private func page(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let (user, shape) = try check(request.envelope, kind: .pull)
        return try await page(request, user: user, shape: shape)
    }

    private func page(_ request: SyncPullRequest, user: String?, shape: DeviceShape) async throws -> SyncPullResponse {
        try await run {
            try VersionedSync(server: self, shape: shape).pull(request) { try ServerPull(server: self, request: $0, user: user).page() }
        }
    }

    /// A held pull's page: the one the other pulls woken by the same commit share (see
    /// ``HeldPages``), unless scopes make it the user's or the device made some of its changes.
    private func heldPage(_ request: SyncPullRequest, generation: UInt64) async throws -> SyncPullResponse {
        let (user, shape) = try check(request.envelope, kind: .pull)
        guard scopeLayout == nil else { return try await page(request, user: user, shape: shape) }
        let key = HeldPages.Key(schema: request.envelope.schema, cursor: request.cursor, limit: request.limit)
        let shared = try await heldPages.page(key, generation: generation) {
            try await self.run {
                var authors: Set<String> = []
                let response = try VersionedSync(server: self, shape: shape).pull(request) { request in
                    let (response, read) = try ServerPull(server: self, request: request, user: user).sharedPage()
                    authors = read
                    return response
                }
                return HeldPages.Page(response: response, authors: authors)
            }
        }
        guard shared.authors.contains(SyncServer.author(of: request.envelope.device)) else { return shared.response }
        return try await page(request, user: user, shape: shape)
    }

    /// Refuses a request of another wire version, a schema version the server does not sync, or
    /// that the hook refuses; returns the user it acts for and the device's version.
    private func check(_ envelope: SyncEnvelope, kind: SyncAuthorizationRequest.Kind) throws -> (String?, DeviceShape) {
        guard envelope.protocolVersion == SyncEnvelope.currentProtocolVersion else {
            throw SyncError(
                .malformedMessage,
                "the device speaks sync protocol \(envelope.protocolVersion) and this server \(SyncEnvelope.currentProtocolVersion): update the older side")
        }
        let shape = try versions.shape(of: envelope)
        guard let identify else { return (nil, shape) }
        do {
            return try (identify(SyncAuthorizationRequest(kind: kind, device: envelope.device, credentials: envelope.credentials)), shape)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.unauthorized, "the server refused the \(kind) request: \(error)")
        }
    }

    /// Runs `work` on one of the container's request threads (``ModelContainer/perform(_:)``),
    /// where blocking on the database is allowed, and suspends the caller meanwhile: as many
    /// requests run at once as the store has connections, the rest wait without a thread.
    private func run<R: Sendable>(_ work: @escaping @Sendable () throws -> R) async throws -> R {
        do {
            return try await container.perform { _ in try work() }
        } catch let error as SyncError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            throw SyncError(.serverFailed, "the server could not apply the request, and applied none of it: \(error)")
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

import Foundation
import ModelKit
@testable import ModelKitPostgres
import ModelKitSync
import Testing

/// Returns once the wall clock reads a later millisecond than when it was called. Edits are
/// ordered by hybrid logical clocks, which start from the wall clock's millisecond: an edit saved
/// after this returns is stamped later than every edit saved, on any device, before it was
/// called. It waits for the clock itself, never for a guessed length of time.
func wallClockMovesOn() async {
    let start = wallClockMillisecond()
    while wallClockMillisecond() <= start { await Task.yield() }
}

/// The wall clock's millisecond, as `HybridLogicalClock` reads it.
private func wallClockMillisecond() -> Double { (Date().timeIntervalSince1970 * 1000).rounded(.down) }

/// Where the server's store lives in a test.
enum ServerKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres

    /// SQLite, and PostgreSQL when `MODELKIT_TEST_POSTGRES_URL` names a server.
    static var available: [ServerKind] { [.sqlite] + (PostgresServer.url == nil ? [] : [.postgres]) }

    var testDescription: String { rawValue }
}

/// A throwaway PostgreSQL schema for one test, dropped at the end.
final class PostgresServer: Sendable {
    static let url: URL? = ProcessInfo.processInfo.environment["MODELKIT_TEST_POSTGRES_URL"].flatMap(URL.init(string:))
    /// The connections each test server's container pools: the sync suites run side by side on
    /// one PostgreSQL server, whose connections they share.
    static let connectionsEach = 4
    let schemaName = "modelkit_sync_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"

    /// The URL instance `instance` connects with: instances have their own application names,
    /// as separate processes would.
    func url(instance: Int) -> URL {
        var components = URLComponents(url: Self.url!, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "schema", value: schemaName), URLQueryItem(name: "application_name", value: "\(schemaName)_\(instance)"),
        ]
        return components.url!
    }

    deinit {
        try? PostgresDriverForTests.execute("DROP SCHEMA IF EXISTS \"\(schemaName)\" CASCADE", at: Self.url!)
    }
}

/// A server, its store, and devices on SQLite files, all in one test's directory.
final class SyncWorld {
    let directory: URL
    let kind: ServerKind
    private let postgres: PostgresServer?
    private(set) var servers: [SyncServer] = []
    private var deviceCount = 0

    /// A world whose server has `scopes` when given: a request acts for the user its `user`
    /// credential names (see ``device(instance:types:user:)``).
    init(_ kind: ServerKind = .sqlite, instances: Int = 1, policies: SyncPolicies = SyncPolicies(), types: [any PersistentModel.Type] = syncedTypes, scopes: SyncScopes? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelKitSyncTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.kind = kind
        postgres = kind == .postgres ? PostgresServer() : nil
        for instance in 1...instances {
            let container = try serverContainer(instance: instance, types: types)
            if let scopes {
                servers.append(
                    try SyncServer(container: container, policies: policies, scopes: scopes) { request in
                        guard let user = request.credentials["user"] else { throw SyncError(.unauthorized, "no user") }
                        return user
                    })
            } else {
                servers.append(try SyncServer(container: container, policies: policies))
            }
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var server: SyncServer { servers[0] }

    /// A container on the server's store, as instance `instance` opens it.
    func serverContainer(instance: Int = 1, types: [any PersistentModel.Type] = syncedTypes) throws -> ModelContainer {
        switch kind {
        case .sqlite:
            return try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: directory.appendingPathComponent("server.store"))])
        case .postgres:
            // A few connections each: the suites' servers run side by side on one test database.
            return try ModelContainer(
                for: Schema(types), configurations: [PostgresConfiguration(url: postgres!.url(instance: instance), connectTimeout: .seconds(30), pooledConnections: PostgresServer.connectionsEach)])
        }
    }

    /// A new device, syncing through server instance `instance` (in process).
    /// A new device on a store file of its own, syncing with server instance `instance`, or
    /// `through` another transport (HTTP, a link that fails on demand).
    func device(
        instance: Int = 1, types: [any PersistentModel.Type] = syncedTypes, user: String? = nil, through transport: (any SyncTransport)? = nil
    ) throws -> Device {
        deviceCount += 1
        let url = directory.appendingPathComponent("device\(deviceCount).store")
        return try Device(
            url: url, types: types, transport: transport ?? servers[instance - 1], credentials: user.map { ["user": $0] } ?? [:], keeping: self)
    }
}

/// A device: its container, a context to edit with, and its sync client.
final class Device {
    let url: URL
    let container: ModelContainer
    let client: SyncClient
    let context: ModelContext
    /// The world the device syncs in, kept while the device is: its server store goes with it.
    private let world: AnyObject?

    init(url: URL, types: [any PersistentModel.Type], transport: any SyncTransport, credentials: [String: String] = [:], keeping world: AnyObject? = nil) throws {
        self.url = url
        self.world = world
        container = try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url)])
        client = try SyncClient(container: container, transport: transport, credentials: credentials)
        context = ModelContext(container)
        context.autosaveEnabled = false
    }

    @discardableResult
    func sync() async throws -> SyncReport {
        try await client.sync()
    }

    /// Makes `models` here and syncs them to `other`.
    func share(_ models: [any PersistentModel], with other: Device) async throws {
        for model in models { context.insert(model) }
        try context.save()
        try await sync()
        try await other.sync()
    }

    /// The models of `type` as a fresh context reads them.
    func all<T: PersistentModel>(_ type: T.Type, sortBy: [SortDescriptor<T>] = []) throws -> [T] {
        try ModelContext(container).fetch(FetchDescriptor<T>(sortBy: sortBy))
    }
}

enum PostgresDriverForTests {
    static func execute(_ sql: String, at url: URL) throws {
        try PostgresDriver(url: url, connectTimeout: .seconds(30)).connect().execute(sql)
    }
}

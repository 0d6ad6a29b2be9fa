import Foundation
import ModelKit
import ModelKitPostgres
import ModelKitSync

/// The run's server (a SQLite store, or instances on one throwaway PostgreSQL schema) and its
/// devices, each assigned to an instance in turn; all removed when the world goes.
final class ChaosWorld {
    let directory: URL
    let servers: [SyncServer]
    let devices: [ChaosDevice]
    private let postgresURL: URL?
    private let schemaName: String

    init(_ configuration: ChaosConfiguration, random: ChaosRandom, ledger: ChaosLedger) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelkit-sync-chaos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        let schema = Schema(ChaosModels.types)
        let schemaName = "modelkit_chaos_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        self.schemaName = schemaName
        var servers: [SyncServer] = []
        switch configuration.server {
        case .sqlite:
            postgresURL = nil
            let container = try ModelContainer(for: schema, configurations: [ModelConfiguration(url: directory.appendingPathComponent("server.store"))])
            servers = [try SyncServer(container: container, policies: ChaosModels.policies)]
        case .postgres(let url, let instances):
            postgresURL = url
            for instance in 1...max(1, instances) {
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.queryItems = (components.queryItems ?? []) + [
                    URLQueryItem(name: "schema", value: schemaName), URLQueryItem(name: "application_name", value: "\(schemaName)_\(instance)"),
                ]
                let container = try ModelContainer(for: schema, configurations: [PostgresConfiguration(url: components.url!)])
                servers.append(try SyncServer(container: container, policies: ChaosModels.policies))
            }
        }
        self.servers = servers
        devices = try (1...configuration.devices).map { index in
            try ChaosDevice(
                index: index, url: directory.appendingPathComponent("d\(index).store"), server: servers[(index - 1) % servers.count],
                random: random.derived(UInt64(index)), ledger: ledger)
        }
    }

    deinit {
        if postgresURL != nil {
            try? ModelContext(servers[0].container).replicaWrite { try $0.execute("DROP SCHEMA IF EXISTS \"\(schemaName)\" CASCADE") }
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

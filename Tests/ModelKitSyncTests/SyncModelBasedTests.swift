import Foundation
import ModelKitSync
import SyncChaos
import Testing

/// The model-based randomized sync test (issue 48), short: a few seeds of a few devices making
/// random offline edits and syncing through a faulty transport, on SQLite and on PostgreSQL.
/// `SYNC_CHAOS_SEED=<n>` replays one seed; `modelkit-sync-chaos` runs it long, and on two
/// PostgreSQL server instances.
@Suite struct SyncModelBasedTests {
    @Test(arguments: ServerKind.available)
    func randomEditsUnderNetworkFaultsEndAsTheModelSays(_ kind: ServerKind) async throws {
        let replay = ProcessInfo.processInfo.environment["SYNC_CHAOS_SEED"].flatMap(UInt64.init)
        // A short run: two seeds on SQLite, one on PostgreSQL. `modelkit-sync-chaos` runs many,
        // and on two PostgreSQL instances (`--instances 2`).
        let seeds = replay.map { [$0] } ?? (0..<(kind == .sqlite ? 2 : 1)).map { _ in UInt64.random(in: 0...UInt64.max) }
        let server: ChaosConfiguration.Server = kind == .sqlite ? .sqlite : .postgres(url: PostgresServer.url!, instances: 1)
        for seed in seeds {
            let outcome = try await SyncChaos.run(ChaosConfiguration(seed: seed, devices: 3, operations: 60, server: server))
            print(outcome.report)
            #expect(outcome.passed, "seed \(seed) on \(kind) (SYNC_CHAOS_SEED=\(seed)): \(outcome.problems.joined(separator: "\n"))")
        }
    }
}

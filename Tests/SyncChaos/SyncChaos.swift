import Foundation
import ModelKitSync

/// What one chaos run does: its seed, how many devices and operations, and its server.
public struct ChaosConfiguration: Sendable {
    public enum Server: Sendable, CustomStringConvertible {
        case sqlite
        /// Instances of `SyncServer` on one throwaway schema of the database at `url`.
        case postgres(url: URL, instances: Int)

        public var description: String {
            switch self {
            case .sqlite: "SQLite"
            case .postgres(_, let instances): "PostgreSQL, \(instances) instance\(instances == 1 ? "" : "s")"
            }
        }
    }

    public var seed: UInt64
    public var devices: Int
    public var operations: Int
    public var server: Server

    public init(seed: UInt64, devices: Int = 3, operations: Int = 60, server: Server = .sqlite) {
        self.seed = seed
        self.devices = max(1, devices)
        self.operations = operations
        self.server = server
    }

    /// `SYNC_CHAOS_SEED` from the environment, or a random seed.
    public static func seedFromEnvironment() -> UInt64 {
        ProcessInfo.processInfo.environment["SYNC_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
    }

    public var description: String { "seed \(seed), \(devices) devices, \(operations) operations, \(server)" }
}

/// How a run ended: the problems found (none when sync kept its promises), and a report with
/// the seed, the problems, and the log of operations and syncs.
public struct ChaosOutcome: Sendable {
    public let configuration: ChaosConfiguration
    public let problems: [String]
    public let log: [String]
    public let seconds: Double

    public var passed: Bool { problems.isEmpty }

    public var report: String {
        var lines = ["sync chaos \(configuration.description) (replay with SYNC_CHAOS_SEED=\(configuration.seed)): "
            + (passed ? "passed" : "\(problems.count) problem\(problems.count == 1 ? "" : "s")")]
        guard !passed else { return lines[0] }
        lines += problems.map { "  " + $0.replacingOccurrences(of: "\n", with: "\n  ") }
        lines.append("operations and syncs:")
        lines += log.map { "  " + $0.replacingOccurrences(of: "\n", with: "\n    ") }
        return lines.joined(separator: "\n")
    }
}

/// The model-based randomized sync test (issue 48): devices make random offline edits and sync
/// at random moments through a transport that drops, loses and repeats requests; then every
/// device syncs with faults off until nothing moves, and every device must equal the server,
/// and the server the reference model of what was done (``ChaosExpectations``).
public enum SyncChaos {
    public static func run(_ configuration: ChaosConfiguration) async throws -> ChaosOutcome {
        let started = ContinuousClock.now
        var isPostgres = false
        if case .postgres = configuration.server { isPostgres = true }
        let ledger = ChaosLedger(isPostgres: isPostgres)
        var random = ChaosRandom(seed: configuration.seed)
        let world = try ChaosWorld(configuration, random: random.derived(0), ledger: ledger)
        ledger.log("\(configuration.description)")
        try await churn(world, configuration.operations, ledger, &random)
        await settle(world, ledger)
        try check(world, ledger)
        let elapsed = ContinuousClock.now - started
        return ChaosOutcome(
            configuration: configuration, problems: ledger.problems, log: ledger.log,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Random operations on random devices, and syncs at random moments: concurrent with each
    /// other, and with edits on the syncing device.
    private static func churn(_ world: ChaosWorld, _ operations: Int, _ ledger: ChaosLedger, _ random: inout ChaosRandom) async throws {
        var edits = ChaosOperations(ledger: ledger)
        var syncing: [Int: Task<Void, Never>] = [:]
        for _ in 0..<operations {
            let device = random.pick(world.devices)
            if random.chance(25) {
                await syncing[device.index]?.value
                syncing[device.index] = Task { _ = try? await device.sync(ledger) }
            } else {
                edits.perform(on: device, random: &random)
            }
            if random.chance(8) {
                for task in syncing.values { await task.value }
                syncing = [:]
            }
            if random.chance(30) { try await Task.sleep(for: .milliseconds(Int.random(in: 1...4, using: &random))) }
        }
        for task in syncing.values { await task.value }
    }

    /// Faults off, pushes kept for later delivered, then every device syncs in turn until two
    /// rounds move nothing. Every sync must succeed now: a failure is a device stuck.
    private static func settle(_ world: ChaosWorld, _ ledger: ChaosLedger) async {
        ledger.log("faults off")
        for device in world.devices { await device.transport.quiet() }
        var quietRounds = 0
        var stuck: Set<Int> = []
        for _ in 0..<12 where quietRounds < 2 {
            var moved = false
            for device in world.devices {
                do {
                    let report = try await device.sync(ledger)
                    moved = moved || report.pushed > 0 || report.pulled > 0 || report.rejected > 0
                } catch {
                    if stuck.insert(device.index).inserted { ledger.problem("\(device.name) cannot sync with faults off: \(error)") }
                    moved = true
                }
            }
            quietRounds = moved ? 0 : quietRounds + 1
        }
        if quietRounds < 2 && stuck.isEmpty { ledger.problem("syncs kept moving rows after 12 rounds with faults off") }
    }

    /// Every device equals the server, and the server equals the reference model.
    private static func check(_ world: ChaosWorld, _ ledger: ChaosLedger) throws {
        let server = try ChaosSnapshot(world.servers[0].container)
        for device in world.devices {
            let diff = try ChaosSnapshot(device.container).diff(server)
            if !diff.isEmpty { ledger.problem("\(device.name) differs from the server (- device, + server):\n" + diff.joined(separator: "\n")) }
        }
        for problem in ChaosExpectations(facts: ledger.facts).problems(of: server) { ledger.problem("server vs model: " + problem) }
        ledger.log("server holds:\n" + server.lines.joined(separator: "\n"))
    }
}

// modelkit-sync-chaos: the model-based randomized sync test (SyncChaos) run long, seed after
// seed, until the time is up or a run diverges.
//
//     swift run modelkit-sync-chaos [--seconds 60] [--devices 3] [--operations 80] [--seed N]
//                                   [--postgres URL [--instances 2]]
//
// Prints each seed as it runs and a final tally; a divergence prints its seed, problems and
// log, and exits 1. `--seed` (or SYNC_CHAOS_SEED) replays one seed.

import Foundation
import SyncChaos

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let seconds = option("--seconds").flatMap(Double.init) ?? 60
let devices = option("--devices").flatMap(Int.init) ?? 3
let operations = option("--operations").flatMap(Int.init) ?? 80
let replay = option("--seed").flatMap(UInt64.init) ?? ProcessInfo.processInfo.environment["SYNC_CHAOS_SEED"].flatMap(UInt64.init)
let server: ChaosConfiguration.Server =
    if let url = option("--postgres").flatMap(URL.init(string:)) {
        .postgres(url: url, instances: option("--instances").flatMap(Int.init) ?? 2)
    } else {
        .sqlite
    }

let deadline = Date().addingTimeInterval(seconds)
var runs = 0
var operationsRun = 0
repeat {
    let seed = replay ?? UInt64.random(in: 0...UInt64.max)
    print("seed \(seed)")
    let outcome = try await SyncChaos.run(ChaosConfiguration(seed: seed, devices: devices, operations: operations, server: server))
    runs += 1
    operationsRun += operations
    guard outcome.passed else {
        print("DIVERGED\n" + outcome.report)
        print("tally: \(runs) runs, \(operationsRun) operations; seed \(seed) diverged")
        exit(1)
    }
    print(String(format: "  passed (%.1f s)", outcome.seconds))
} while replay == nil && Date() < deadline
print("tally: \(runs) runs, \(operationsRun) operations, \(devices) devices each, \(server): no divergence")

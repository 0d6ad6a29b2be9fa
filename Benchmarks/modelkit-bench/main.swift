// modelkit-bench: ModelKit side by side with hand-written SQLite, in one run.
//
//     swift run -c release modelkit-bench [--rows N] [--runs R] [--json] [--only CASE[,CASE…]] [--store sqlite|postgres]
//
// Each case does the same work through ModelKit and through raw SQLite C calls into plain structs,
// on on-disk stores in a temporary directory with the same schema and indexes. Each runs R times
// (5 by default); the table shows medians, their ratio, and each side's peak resident memory.
// Two cases compare ModelKit with itself: insert_history_vs_off puts ModelKit with its history
// turned off in the raw column, to show what recording history costs; custom_store_fetch fetches
// 10,000 models from a custom data store whose snapshots are in memory, with ModelKit's SQLite
// store in the raw column (target: within 2x). The floor_ cases run no ModelKit code: hand-written
// SQLite calls reading rows into class instances, against the same calls into structs.

import Foundation

struct Options {
    var rows = 100_000
    var runs = 5
    var json = false
    /// The cases to run, when `--only` names some (comma-separated).
    var only: Set<String>?
    var postgres = false

    init(_ arguments: [String]) {
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--rows": rows = number(arguments.popFirst())
            case "--runs": runs = number(arguments.popFirst())
            case "--json": json = true
            case "--only":
                guard let name = arguments.popFirst() else { usage() }
                only = Set(name.split(separator: ",").map(String.init))
            case "--store":
                switch arguments.popFirst() {
                case "sqlite": postgres = false
                case "postgres": postgres = true
                default: usage()
                }
            default: usage()
            }
        }
        if rows < 1000 || runs < 1 { usage() }
    }

    /// Whether any of the named cases runs, so setup for cases `--only` leaves out is skipped.
    func wants(_ names: String...) -> Bool {
        only.map { !$0.isDisjoint(with: names) } ?? true
    }
}

func number(_ text: String?) -> Int {
    guard let text, let value = Int(text) else { usage() }
    return value
}

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            "usage: modelkit-bench [--rows N (at least 1000)] [--runs R] [--json] [--only CASE[,CASE…]] [--store sqlite|postgres]\n".utf8))
    exit(2)
}

struct CaseResult: Encodable {
    let name: String
    let engineSeconds: Double
    let rawSeconds: Double
    let ratio: Double
    let enginePeakMegabytes: Double?
    let rawPeakMegabytes: Double?

    enum CodingKeys: String, CodingKey {
        case name
        case engineSeconds = "engine_seconds"
        case rawSeconds = "raw_seconds"
        case ratio
        case enginePeakMegabytes = "engine_peak_mb"
        case rawPeakMegabytes = "raw_peak_mb"
    }
}

/// Times `runs` runs of each side; `body` returns the seconds of its timed part. Returns nil for a
/// case that `--only` leaves out.
func measure(
    _ name: String, _ options: Options, engine: () throws -> Double, raw: () throws -> Double
) rethrows -> CaseResult? {
    if let only = options.only, !only.contains(name) { return nil }
    let runs = options.runs
    resetPeakResident()
    let engineSeconds = median(try (0..<runs).map { _ in try engine() })
    let enginePeak = peakResidentMegabytes()
    resetPeakResident()
    let rawSeconds = median(try (0..<runs).map { _ in try raw() })
    let rawPeak = peakResidentMegabytes()
    return CaseResult(
        name: name, engineSeconds: engineSeconds, rawSeconds: rawSeconds,
        ratio: engineSeconds / rawSeconds,
        enginePeakMegabytes: enginePeak, rawPeakMegabytes: rawPeak)
}

/// Times `runs` runs of each side, alternating, for two sides so alike that drift in the
/// machine's speed over a run would otherwise decide the ratio. No peak memory: the sides share it.
func measureAlternating(
    _ name: String, _ options: Options, engine: () throws -> Double, raw: () throws -> Double
) rethrows -> CaseResult? {
    if let only = options.only, !only.contains(name) { return nil }
    var engineRuns: [Double] = []
    var rawRuns: [Double] = []
    for _ in 0..<options.runs {
        engineRuns.append(try engine())
        rawRuns.append(try raw())
    }
    let engineSeconds = median(engineRuns)
    let rawSeconds = median(rawRuns)
    return CaseResult(
        name: name, engineSeconds: engineSeconds, rawSeconds: rawSeconds, ratio: engineSeconds / rawSeconds,
        enginePeakMegabytes: nil, rawPeakMegabytes: nil)
}

func run(_ options: Options) throws -> [CaseResult] {
    let n = options.rows
    var results: [CaseResult] = []

    results.appendIfPresent(
        try measure("insert", options) {
            try withTemporaryDirectory { directory in
                let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
                return try seconds { try engine.insert(n) }
            }
        } raw: {
            try withTemporaryDirectory { directory in
                let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
                raw.createSchema()
                return seconds { raw.insert(n) }
            }
        })

    // What recording history costs: the same insert with history on, and (in the raw column) off.
    results.appendIfPresent(
        try measureAlternating("insert_history_vs_off", options) {
            try withTemporaryDirectory { directory in
                let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
                return try seconds { try engine.insert(n) }
            }
        } raw: {
            try withTemporaryDirectory { directory in
                let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"), recordsHistory: false)
                return try seconds { try engine.insert(n) }
            }
        })

    if options.wants(
        "fetch_all", "fetch_point", "fetch_range_sorted_limit", "fetch_limit_with_pending", "count", "update_all", "delete_all")
    {
        try withTemporaryDirectory { directory in
            let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
            try engine.insert(n)
            let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
            raw.createSchema()
            raw.insert(n)

            results += try tableCases(engine: engine, raw: raw, rows: n, options: options)
        }
    }
    results += try partialFetchCases(rows: n, options: options)
    results += try objectFloorCases(rows: n, options: options)
    results += try observerCases(options: options)
    results += try hierarchyStorageCases(rows: n, options: options)
    results += try hierarchyEngineCases(rows: n, options: options)
    results += try customStoreCases(options: options)
    let parents = n / 10
    results.appendIfPresent(
        try measure("relationship_insert", options) {
            try withTemporaryDirectory { directory in
                let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
                return try seconds { try engine.insertFamilies(parents) }
            }
        } raw: {
            try withTemporaryDirectory { directory in
                let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
                raw.createFamilySchema()
                return seconds { raw.insertFamilies(parents) }
            }
        })

    results.appendIfPresent(
        try measure("to_many_append", options) {
            try withTemporaryDirectory { directory in
                let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
                return try seconds { try engine.appendChildren(parents) }
            }
        } raw: {
            try withTemporaryDirectory { directory in
                let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
                raw.createFamilySchema()
                return seconds { raw.appendChildren(parents) }
            }
        })

    if options.wants("join_unread_list") {
        try withFamilyStores { engine, raw in
            try engine.appendChildren(parents)
            raw.appendChildren(parents)
            results.appendIfPresent(
                try measure("join_unread_list", options) {
                    try seconds { try engine.joinOneChildEach(requests: 100) }
                } raw: {
                    seconds { raw.joinOneChildEach(requests: 100) }
                })
        }
    }

    if options.wants("relationship_fetch_prefetch") {
        try withFamilyStores { engine, raw in
            try engine.insertFamilies(parents)
            raw.insertFamilies(parents)
            results.appendIfPresent(
                try measure("relationship_fetch_prefetch", options) {
                    try seconds {
                        let children = try engine.fetchFamilies()
                        precondition(children == parents * 10)
                    }
                } raw: {
                    seconds { precondition(raw.fetchFamilies() == parents * 10) }
                })
        }
    }
    return results
}

/// An engine store and a raw one with the family schema, in a directory removed afterwards.
func withFamilyStores(_ body: (EngineStore, RawStore) throws -> Void) throws {
    try withTemporaryDirectory { directory in
        let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
        let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
        raw.createFamilySchema()
        try body(engine, raw)
    }
}

extension Array {
    mutating func appendIfPresent(_ element: Element?) {
        if let element { append(element) }
    }
}

func printTable(_ results: [CaseResult], options: Options) {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("modelkit-bench: \(options.rows) rows, median of \(options.runs) runs, \(cores) cores, \(options.postgres ? "PostgreSQL" : "SQLite")")
    print("case                           engine s      raw s   ratio  engine MB  raw MB")
    for result in results {
        let megabytes = { (value: Double?) in value.map { String(format: "%9.0f", $0) } ?? "        -" }
        print(
            result.name.padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(
                    format: " %10.6f %10.6f %6.2fx", result.engineSeconds, result.rawSeconds, result.ratio)
                + " \(megabytes(result.enginePeakMegabytes))  \(megabytes(result.rawPeakMegabytes))")
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
do {
    let results = try options.postgres ? runPostgres(options) : run(options)
    if options.json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(results), as: UTF8.self))
    } else {
        printTable(results, options: options)
    }
} catch {
    FileHandle.standardError.write(Data("modelkit-bench: \(error)\n".utf8))
    exit(1)
}

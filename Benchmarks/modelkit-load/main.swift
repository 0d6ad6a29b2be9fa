// modelkit-load: requests a second of server instances on one PostgreSQL database, the engine
// beside hand-written libpq, in one run.
//
//     swift run -c release modelkit-load [--workload writes|mixed|reads] [--concurrency 16]
//         [--processes 1] [--seconds 5] [--runs 3] [--latency-ms 0] [--rows 10000] [--mode tasks|actors|threads|perform]
//
// The server is MODELKIT_BENCH_POSTGRES_URL's (or MODELKIT_TEST_POSTGRES_URL's). Each side gets a
// schema of its own, seeded with `rows` rows. A run starts `processes` copies of this program
// (instances sharing nothing but the database), each serving `concurrency` requests at once for
// `seconds`; the sides alternate for `runs` runs, and the table shows medians and ranges. With
// `--latency-ms`, every connection goes through a proxy that delays each chunk that long, each way,
// and the table adds the chunks clients sent per request: the round trips a request waited for.

import Foundation
import ModelKit
import ModelKitPostgres

struct Options {
    var workload = Workload.writes
    var concurrency = 16
    var processes = 1
    var seconds = 5.0
    var runs = 3
    var latency = 0.0
    var rows = 10_000
    var modes: [EngineMode] = [.tasks, .actors, .perform]
    /// Set in a child: which side to run, on which schema, as which process, from when.
    var child: (side: String, schema: String, process: Int, run: Int, start: Date)?
    var url: URL?

    init(_ arguments: [String]) {
        var arguments = arguments[...]
        func value() -> String {
            guard let value = arguments.popFirst() else { usage() }
            return value
        }
        func number() -> Double {
            guard let number = Double(value()), number >= 0 else { usage() }
            return number
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--workload": guard let workload = Workload(rawValue: value()) else { usage() }
                self.workload = workload
            case "--concurrency": concurrency = Int(number())
            case "--processes": processes = Int(number())
            case "--seconds": seconds = number()
            case "--runs": runs = Int(number())
            case "--latency-ms": latency = number()
            case "--rows": rows = Int(number())
            case "--mode": guard let mode = EngineMode(rawValue: value()) else { usage() }
                modes = [mode]
            case "--url": url = URL(string: value())
            case "--child":
                let side = value()
                let schema = value()
                let process = Int(number())
                let run = Int(number())
                child = (side, schema, process, run, Date(timeIntervalSince1970: number()))
            default: usage()
            }
        }
        if concurrency < 1 || processes < 1 || runs < 1 || rows < 1 || seconds <= 0 { usage() }
    }
}

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            ("usage: modelkit-load [--workload writes|mixed|reads] [--concurrency N] [--processes N] [--seconds S] [--runs R] "
                + "[--latency-ms MS] [--rows N] [--mode tasks|actors|threads|perform]\n").utf8))
    exit(2)
}

/// The server's URL with the schema `schema` selected.
func url(_ server: URL, schema: String) -> URL {
    var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
    components.queryItems = (components.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: schema)]
    return components.url!
}

/// libpq's URL for `schema`: the search path as a connection option.
func libpqURL(_ server: URL, schema: String) -> URL {
    var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
    components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "options", value: "-csearch_path=\(schema)")]
    return components.url!
}

func container(_ server: URL, schema: String) throws -> ModelContainer {
    try ModelContainer(for: Schema([LoadItem.self]), configurations: [PostgresConfiguration(url: url(server, schema: schema))])
}

/// A child: one instance running one side until its time is up; prints the requests it served.
func runChild(_ options: Options, server: URL) async throws {
    guard let child = options.child else { return }
    let end = child.start.addingTimeInterval(options.seconds)
    let served: Int
    if child.side == "libpq" {
        served = try await runLibpq(
            url: libpqURL(server, schema: child.schema), workload: options.workload, rows: options.rows, concurrency: options.concurrency,
            process: child.process, run: child.run, from: child.start, until: end)
    } else {
        guard let mode = EngineMode(rawValue: child.side) else { usage() }
        let container = try container(server, schema: child.schema)
        served = try await runEngine(
            container, mode: mode, workload: options.workload, rows: options.rows, concurrency: options.concurrency, process: child.process,
            run: child.run, from: child.start, until: end)
    }
    print(served)
}

/// One run of one side: `processes` children at once; returns requests a second.
func runSide(_ side: String, schema: String, run: Int, options: Options, server: URL) throws -> Double {
    let start = Date().addingTimeInterval(1.5)  // time for every child to start and connect
    let children = try (0..<options.processes).map { process in
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [
            "--workload", options.workload.rawValue, "--concurrency", String(options.concurrency), "--seconds", String(options.seconds),
            "--rows", String(options.rows), "--url", server.absoluteString,
            "--child", side, schema, String(process), String(run), String(start.timeIntervalSince1970),
        ]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        return (child, output)
    }
    var served = 0
    for (child, output) in children {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        guard child.terminationStatus == 0, let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw LoadError("a \(side) instance failed (status \(child.terminationStatus))")
        }
        served += count
    }
    return Double(served) / options.seconds
}

func seed(_ server: URL, schema: String, rows: Int) throws {
    let context = ModelContext(try container(server, schema: schema))
    for key in 0..<rows { context.insert(LoadItem(key: key, name: "item \(key)", value: Double(key))) }
    try context.save()
}

func main() async throws {
    let options = Options(Array(CommandLine.arguments.dropFirst()))
    let environment = ProcessInfo.processInfo.environment
    guard let server = options.url ?? (environment["MODELKIT_BENCH_POSTGRES_URL"] ?? environment["MODELKIT_TEST_POSTGRES_URL"]).flatMap(URL.init(string:))
    else {
        FileHandle.standardError.write(Data("modelkit-load: set MODELKIT_BENCH_POSTGRES_URL to a server, for example with scripts/postgres-test-server\n".utf8))
        exit(2)
    }
    if options.child != nil { return try await runChild(options, server: server) }

    var target = server
    #if canImport(Glibc)
    let proxy: LatencyProxy?
    if options.latency > 0 {
        let host = server.host ?? "127.0.0.1"
        proxy = try LatencyProxy(targetHost: host, targetPort: UInt16(server.port ?? 5432), delay: .microseconds(Int(options.latency * 1000)))
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        components.host = "127.0.0.1"
        components.port = Int(proxy!.port)
        target = components.url!
    } else {
        proxy = nil
    }
    defer { withExtendedLifetime(proxy) {} }
    #endif

    let sides = options.modes.map(\.rawValue) + ["libpq"]
    let run = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
    var schemas: [String: String] = [:]
    for side in sides {
        let schema = "load_\(side)_\(run)"
        try seed(server, schema: schema, rows: options.rows)
        schemas[side] = schema
    }
    defer { for schema in schemas.values { dropSchema(schema, at: server) } }

    var results: [String: [Double]] = [:]
    var sends: [String: [Double]] = [:]
    for run in 0..<options.runs {
        for side in sides {
            #if canImport(Glibc)
            let before = proxy?.clientSends.load(ordering: .relaxed) ?? 0
            #endif
            let served = try runSide(side, schema: schemas[side]!, run: run, options: options, server: target)
            results[side, default: []].append(served)
            #if canImport(Glibc)
            if let proxy {
                sends[side, default: []].append(Double(proxy.clientSends.load(ordering: .relaxed) - before) / (served * options.seconds))
            }
            #endif
        }
    }
    print(
        "workload \(options.workload.rawValue), \(options.processes) process(es) x \(options.concurrency) concurrent requests, "
            + "\(options.latency) ms each way, \(options.runs) runs of \(options.seconds) s")
    let libpq = median(results["libpq"]!)
    print(
        "side".padding(toLength: 10, withPad: " ", startingAt: 0) + "  req/s (median)  range            / libpq"
            + (sends.isEmpty ? "" : "  client sends/request"))
    for side in sides {
        let runs = results[side]!
        let range = "\(Int(runs.min()!.rounded()))-\(Int(runs.max()!.rounded()))"
        let sent: String = sends[side].map { "   " + String(format: "%.2f", median($0)) } ?? ""
        print(
            side.padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + String(Int(median(runs).rounded())).padding(toLength: 15, withPad: " ", startingAt: 0)
                + "  " + range.padding(toLength: 15, withPad: " ", startingAt: 0) + "  " + String(format: "%.2f", median(runs) / libpq) + sent)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

try await main()

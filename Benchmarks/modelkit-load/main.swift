// modelkit-load: requests a second of server instances on one PostgreSQL database, the engine
// beside hand-written libpq, in one run.
//
//     swift run -c release modelkit-load [--workload writes|mixed|reads] [--concurrency 16]
//         [--processes 1] [--seconds 5] [--runs 3] [--latency-ms 0] [--rows 10000] [--mode tasks|actors|threads|perform|executor]
//
// The server is MODELKIT_BENCH_POSTGRES_URL's (or MODELKIT_TEST_POSTGRES_URL's). Each side gets a
// schema of its own, seeded with `rows` rows. A run starts `processes` copies of this program
// (instances sharing nothing but the database), each serving `concurrency` requests at once for
// `seconds`; the sides alternate for `runs` runs, and the table shows medians and ranges. With
// `--latency-ms`, every connection goes through a proxy that delays each chunk that long, each way,
// and the table adds the chunks clients sent per request: the round trips a request waited for.
// The client CPU a request is the instances' user and system time (connecting included) over
// the requests they served; with the server on this machine, the server CPU a request is the
// time its processes used over the run, divided likewise.

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
                + "[--latency-ms MS] [--rows N] [--mode tasks|actors|threads|perform|executor]\n").utf8))
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

/// A container keeping as many idle connections as the instance serves requests at once, as
/// the ModelKitPostgres article advises (libpq's side keeps one a request loop).
func container(_ server: URL, schema: String, concurrency: Int = 16) throws -> ModelContainer {
    try ModelContainer(
        for: Schema([LoadItem.self]), configurations: [PostgresConfiguration(url: url(server, schema: schema), pooledConnections: concurrency)])
}

/// A child: one instance running one side until its time is up; prints the requests it served
/// and the CPU time it used (user and system, connecting included).
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
        let container = try container(server, schema: child.schema, concurrency: options.concurrency)
        served = try await runEngine(
            container, mode: mode, workload: options.workload, rows: options.rows, concurrency: options.concurrency, process: child.process,
            run: child.run, from: child.start, until: end)
    }
    print(served, processCPUSeconds())
}

/// The CPU time every process named `postgres` on this machine has used, user and system, with
/// that of those that exited: the server's, when it runs here. Nil elsewhere.
func localServerCPUSeconds() -> Double? {
    #if os(Linux)
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
    var ticks = 0
    for entry in entries where entry.allSatisfy(\.isNumber) {
        guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"), stat[..<close].hasSuffix("(postgres")
        else { continue }
        // After the command: state is field 3; utime, stime, cutime and cstime are fields 14
        // to 17. The last two hold the backends that exited (the postmaster reaps them).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 14 else { continue }
        ticks += fields[11...14].reduce(0) { $0 + (Int($1) ?? 0) }
    }
    return ticks == 0 ? nil : Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    #else
    return nil
    #endif
}

/// The CPU time the process has used, user and system.
func processCPUSeconds() -> Double {
    #if canImport(Glibc)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    #else
    return 0
    #endif
}

/// One run of one side: `processes` children at once; returns requests a second and the
/// children's CPU time a request.
func runSide(_ side: String, schema: String, run: Int, options: Options, server: URL) throws -> (perSecond: Double, cpuPerRequest: Double) {
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
    var cpu = 0.0
    for (child, output) in children {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard child.terminationStatus == 0, fields.count == 2, let count = Int(fields[0]), let seconds = Double(fields[1]) else {
            throw LoadError("a \(side) instance failed (status \(child.terminationStatus))")
        }
        served += count
        cpu += seconds
    }
    return (Double(served) / options.seconds, cpu / Double(max(served, 1)))
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
    var cpu: [String: [Double]] = [:]
    var serverCPU: [String: [Double]] = [:]
    var sends: [String: [Double]] = [:]
    for run in 0..<options.runs {
        for side in sides {
            #if canImport(Glibc)
            let before = proxy?.clientSends.load(ordering: .relaxed) ?? 0
            #endif
            let serverBefore = localServerCPUSeconds()
            let (served, cpuPerRequest) = try runSide(side, schema: schemas[side]!, run: run, options: options, server: target)
            results[side, default: []].append(served)
            cpu[side, default: []].append(cpuPerRequest)
            if let serverBefore, let serverAfter = localServerCPUSeconds() {
                serverCPU[side, default: []].append((serverAfter - serverBefore) / (served * options.seconds))
            }
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
        "side".padding(toLength: 10, withPad: " ", startingAt: 0) + "  req/s (median)  range            / libpq  client CPU µs/request"
            + (serverCPU.isEmpty ? "" : "  server CPU µs/request") + (sends.isEmpty ? "" : "  client sends/request"))
    for side in sides {
        let runs = results[side]!
        let range = "\(Int(runs.min()!.rounded()))-\(Int(runs.max()!.rounded()))"
        let sent: String = sends[side].map { "                   " + String(format: "%.2f", median($0)) } ?? ""
        let clientCPU = "   " + String(format: "%6.0f", median(cpu[side]!) * 1_000_000)
            + (serverCPU[side].map { "                 " + String(format: "%6.0f", median($0) * 1_000_000) } ?? "")
        print(
            side.padding(toLength: 10, withPad: " ", startingAt: 0) + "  " + String(Int(median(runs).rounded())).padding(toLength: 15, withPad: " ", startingAt: 0)
                + "  " + range.padding(toLength: 15, withPad: " ", startingAt: 0) + "  " + String(format: "%.2f", median(runs) / libpq) + clientCPU + sent)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

try await main()

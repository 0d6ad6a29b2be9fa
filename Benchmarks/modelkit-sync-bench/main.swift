// modelkit-sync-bench: an initial sync of N rows (eight attributes) to an empty device, in
// process and over HTTP on loopback, beside the raw floor measured in the same run (one SELECT
// of every row on the server, one SQLite transaction of INSERTs on the device), and one changed
// row's push and pull; a push of N rows made on one device (and the pull of the same rows to a
// fresh device); and a pull of rows whose relationships point at rows of later pages.
//
//     swift run -c release modelkit-sync-bench [--rows 100000] [--runs 3] [--cases initial,push,related]
//         [--push-rows 100000] [--related-rows 2500,5000,10000,20000]
//
// Prints medians (and ranges) of each, the ratio to the floor, rows per second, and the
// process's peak resident memory after each phase.

import Foundation
import ModelKit
import ModelKitSync
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// A row whose owner arrives in a later page: the full download pages through root entities by
/// name, and `LinkItem` sorts before `LinkOwner`.
@Model final class LinkItem {
    var name: String
    var index: Int
    var owner: LinkOwner?

    init(name: String, index: Int, owner: LinkOwner?) {
        self.name = name
        self.index = index
        self.owner = owner
    }
}

@Model final class LinkOwner {
    var name: String
    @Relationship(inverse: \LinkItem.owner) var items: [LinkItem] = []

    init(name: String) { self.name = name }
}

@Model final class BenchRow {
    var name: String
    var count: Int
    var amount: Double
    var flag: Bool
    var date: Date
    var code: UUID
    var note: String
    var blob: Data

    init(name: String, count: Int, amount: Double, flag: Bool, date: Date, code: UUID, note: String, blob: Data) {
        self.name = name
        self.count = count
        self.amount = amount
        self.flag = flag
        self.date = date
        self.code = code
        self.note = note
        self.blob = blob
    }
}

func option(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let parsed = Int(arguments[index + 1]) else { return value }
    return parsed
}

func listOption(_ name: String) -> [String]? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1].split(separator: ",").map(String.init)
}

let rows = option("--rows", default: 100_000)
let runs = option("--runs", default: 3)
let cases = Set(listOption("--cases") ?? ["initial", "push", "related"])
let pushRows = option("--push-rows", default: 100_000)
let relatedSizes = (listOption("--related-rows") ?? ["2500", "5000", "10000", "20000"]).compactMap { Int($0) }
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelkit-sync-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let columns = ["name", "count", "amount", "flag", "date", "code", "note", "blob"]

/// Peak resident memory so far, in megabytes (VmHWM).
func peakMegabytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func summary(_ values: [Double]) -> String {
    let sorted = values.sorted()
    return String(format: "%.3f s (%.3f–%.3f)", sorted[sorted.count / 2], sorted.first!, sorted.last!)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func exec(_ db: OpaquePointer?, _ sql: String) {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
}

/// The floor: every row read on the server, and written on the device in one transaction.
func rawFloor(run: Int) -> Double {
    let serverURL = directory.appendingPathComponent("server.store")
    let start = ContinuousClock.now
    var server: OpaquePointer?
    sqlite3_open(serverURL.path, &server)
    var device: OpaquePointer?
    sqlite3_open(directory.appendingPathComponent("raw-\(run).db").path, &device)
    exec(device, "CREATE TABLE t (pk INTEGER PRIMARY KEY, name TEXT, count INTEGER, amount REAL, flag INTEGER, date REAL, code TEXT, note TEXT, blob BLOB)")
    exec(device, "BEGIN")
    var select: OpaquePointer?
    sqlite3_prepare_v2(server, "SELECT \"_pk\", \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"BenchRow\"", -1, &select, nil)
    var insert: OpaquePointer?
    sqlite3_prepare_v2(device, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &insert, nil)
    while sqlite3_step(select) == SQLITE_ROW {
        for column in 0..<Int32(9) { sqlite3_bind_value(insert, column + 1, sqlite3_column_value(select, column)) }
        guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(device))) }
        sqlite3_reset(insert)
    }
    sqlite3_finalize(select)
    sqlite3_finalize(insert)
    exec(device, "COMMIT")
    sqlite3_close(device)
    sqlite3_close(server)
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func device(_ name: String) throws -> ModelContainer {
    try ModelContainer(for: BenchRow.self, configurations: ModelConfiguration(url: directory.appendingPathComponent("\(name).store")))
}

var peaks: [String: Int] = [:]
let serverURL = directory.appendingPathComponent("server.store")
if cases.contains("initial") {
    // The server's rows, written with raw SQL into the table the engine made: setup, not measured.
    let serverContainer = try ModelContainer(for: BenchRow.self, configurations: ModelConfiguration(url: serverURL))
    do {
        var db: OpaquePointer?
        sqlite3_open(serverURL.path, &db)
        exec(db, "BEGIN")
        var statement: OpaquePointer?
        let quoted = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        sqlite3_prepare_v2(db, "INSERT INTO \"BenchRow\" (\(quoted)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let blob = [UInt8](repeating: 7, count: 16)
        for index in 0..<rows {
            sqlite3_bind_text(statement, 1, "row \(index)", -1, transient)
            sqlite3_bind_int64(statement, 2, Int64(index))
            sqlite3_bind_double(statement, 3, Double(index) * 1.5)
            sqlite3_bind_int64(statement, 4, Int64(index % 2))
            sqlite3_bind_double(statement, 5, Double(index))
            sqlite3_bind_text(statement, 6, UUID().uuidString, -1, transient)
            sqlite3_bind_text(statement, 7, "a note of some length for row \(index)", -1, transient)
            sqlite3_bind_blob(statement, 8, blob, 16, transient)
            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        exec(db, "COMMIT")
        sqlite3_close(db)
    }
    let server = try SyncServer(container: serverContainer)
    print("modelkit-sync-bench: \(rows) rows of 8 attributes, \(runs) runs each, SQLite server and devices")

    var floor: [Double] = []
    var inProcess: [Double] = []
    var overHTTP: [Double] = []
    let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server))
    http.start()
    let httpURL = URL(string: "http://127.0.0.1:\(http.port)/sync")!
    for run in 0..<runs {
        floor.append(rawFloor(run: run))
        peaks["raw floor"] = peakMegabytes()
        let local = try device("in-process-\(run)")
        inProcess.append(try await seconds { _ = try await SyncClient(container: local, transport: server).sync() })
        peaks["in process"] = peakMegabytes()
        let remote = try device("http-\(run)")
        overHTTP.append(try await seconds { _ = try await SyncClient(container: remote, transport: HTTPSyncTransport(url: httpURL)).sync() })
        peaks["over HTTP"] = peakMegabytes()
        let count = try ModelContext(remote).fetchCount(FetchDescriptor<BenchRow>())
        precondition(count == rows, "the device has \(count) rows, not \(rows)")
    }

    // One changed row: pushed by one device, pulled by another.
    let writer = try device("writer")
    let reader = try device("reader")
    let writerClient = try SyncClient(container: writer, transport: HTTPSyncTransport(url: httpURL))
    let readerClient = try SyncClient(container: reader, transport: HTTPSyncTransport(url: httpURL))
    _ = try await writerClient.sync()
    _ = try await readerClient.sync()
    var roundTrips: [Double] = []
    for run in 0..<max(runs, 5) {
        let context = ModelContext(writer)
        var first = FetchDescriptor<BenchRow>()
        first.fetchLimit = 1
        try context.fetch(first)[0].note = "changed \(run)"
        try context.save()
        roundTrips.append(try await seconds {
            _ = try await writerClient.sync()
            let report = try await readerClient.sync()
            precondition(report.pulled == 1)
        })
    }
    http.stop()

    let floorMedian = median(floor)
    print("| case | median (range) | × raw floor | rows/s | peak RSS after |")
    print("|---|---|---|---|---|")
    print("| raw floor (SELECT on the server, one INSERT transaction on the device) | \(summary(floor)) | 1.00 | \(Int(Double(rows) / floorMedian)) | \(peaks["raw floor"]!) MB |")
    for (name, values) in [("initial sync, in process", inProcess), ("initial sync, HTTP on loopback", overHTTP)] {
        print(String(format: "| %@ | %@ | %.2f | %d | %d MB |", name, summary(values), median(values) / floorMedian, Int(Double(rows) / median(values)), peaks[name.contains("HTTP") ? "over HTTP" : "in process"]!))
    }
    print("| one changed row, push then pull over HTTP | \(summary(roundTrips)) | | | |")
}

/// The raw floor of a copy: every row of `tables` read from `source` and written to a new
/// database in one transaction, each table's columns as they are.
func rawCopy(from source: URL, tables: [String], into name: String) -> Double {
    let start = ContinuousClock.now
    var from: OpaquePointer?
    sqlite3_open(source.path, &from)
    var to: OpaquePointer?
    sqlite3_open(directory.appendingPathComponent("\(name).db").path, &to)
    exec(to, "BEGIN")
    for table in tables {
        var select: OpaquePointer?
        sqlite3_prepare_v2(from, "SELECT * FROM \"\(table)\"", -1, &select, nil)
        let count = sqlite3_column_count(select)
        exec(to, "CREATE TABLE \"\(table)\" (\((0..<count).map { "c\($0)" }.joined(separator: ", ")))")
        var insert: OpaquePointer?
        sqlite3_prepare_v2(to, "INSERT INTO \"\(table)\" VALUES (\(Array(repeating: "?", count: Int(count)).joined(separator: ", ")))", -1, &insert, nil)
        while sqlite3_step(select) == SQLITE_ROW {
            for column in 0..<count { sqlite3_bind_value(insert, column + 1, sqlite3_column_value(select, column)) }
            guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(to))) }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(select)
        sqlite3_finalize(insert)
    }
    exec(to, "COMMIT")
    sqlite3_close(to)
    sqlite3_close(from)
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// A transport in front of a server that times its calls: how long the server spends in
/// pushes, and when the first pull is asked for (the end of a sync's push phase).
final class TimedTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private let lock = NSLock()
    private(set) var pushSeconds = 0.0
    private(set) var pushes = 0
    private(set) var firstPull: ContinuousClock.Instant?

    init(server: SyncServer) { self.server = server }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let start = ContinuousClock.now
        let response = try await server.push(request)
        let elapsed = ContinuousClock.now - start
        lock.withLock {
            pushSeconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            pushes += 1
        }
        return response
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let now = ContinuousClock.now
        lock.withLock { if firstPull == nil { firstPull = now } }
        return try await server.pull(request)
    }
}

func store(_ name: String) -> URL { directory.appendingPathComponent("\(name).store") }

// Push: one device makes N rows (in saves of 10,000: setup, not measured), then one sync pushes
// them all to an empty in-process server on SQLite. The push phase runs from the sync's start
// to its first pull request (the device reading its history and values, the server's push, the
// device recording the answer); the sync then pulls its own rows back. A fresh device then pulls
// the same rows from that server.
if cases.contains("push") {
    var floors: [Double] = []
    var pushPhases: [Double] = []
    var serverPushes: [Double] = []
    var wholeSyncs: [Double] = []
    var pulls: [Double] = []
    var pushCalls = 0
    for run in 0..<runs {
        let local = try ModelContainer(for: BenchRow.self, configurations: ModelConfiguration(url: store("push-device-\(run)")))
        let blob = Data(repeating: 7, count: 16)
        var made = 0
        while made < pushRows {
            let context = ModelContext(local)
            for index in made..<min(pushRows, made + 10_000) {
                context.insert(
                    BenchRow(
                        name: "row \(index)", count: index, amount: Double(index) * 1.5, flag: index % 2 == 1,
                        date: Date(timeIntervalSinceReferenceDate: Double(index)), code: UUID(), note: "a note of some length for row \(index)",
                        blob: blob))
            }
            try context.save()
            made = min(pushRows, made + 10_000)
        }
        floors.append(rawCopy(from: store("push-device-\(run)"), tables: ["BenchRow"], into: "push-raw-\(run)"))
        let pushServer = try SyncServer(
            container: try ModelContainer(for: BenchRow.self, configurations: ModelConfiguration(url: store("push-server-\(run)"))))
        let timed = TimedTransport(server: pushServer)
        let client = try SyncClient(container: local, transport: timed)
        let start = ContinuousClock.now
        var report = SyncReport()
        wholeSyncs.append(try await seconds { report = try await client.sync() })
        precondition(report.pushed == pushRows, "pushed \(report.pushed) rows, not \(pushRows)")
        let phase = (timed.firstPull ?? ContinuousClock.now) - start
        pushPhases.append(Double(phase.components.seconds) + Double(phase.components.attoseconds) / 1e18)
        serverPushes.append(timed.pushSeconds)
        pushCalls = timed.pushes
        peaks["push"] = peakMegabytes()
        let serverCount = try ModelContext(pushServer.container).fetchCount(FetchDescriptor<BenchRow>())
        precondition(serverCount == pushRows, "the server has \(serverCount) rows, not \(pushRows)")
        let fresh = try ModelContainer(for: BenchRow.self, configurations: ModelConfiguration(url: store("push-reader-\(run)")))
        var pulled = 0
        pulls.append(try await seconds { pulled = try await SyncClient(container: fresh, transport: pushServer).sync().pulled })
        precondition(pulled == pushRows, "pulled \(pulled) rows, not \(pushRows)")
        peaks["push pull"] = peakMegabytes()
    }
    let floorMedian = median(floors)
    print("")
    print("push: \(pushRows) rows made on one device, one sync to an in-process SQLite server (\(pushCalls) push request(s)); \(runs) runs")
    print("| case | median (range) | × raw floor | rows/s | peak RSS after |")
    print("|---|---|---|---|---|")
    print("| raw floor (SELECT on the device, one INSERT transaction in a new database) | \(summary(floors)) | 1.00 | \(Int(Double(pushRows) / floorMedian)) | |")
    for (name, values, peak) in [
        ("push phase of the sync (device reads, server push, device records the answer)", pushPhases, peaks["push"]!),
        ("  of which the server's push call", serverPushes, peaks["push"]!),
        ("whole first sync of the pushing device (push, then its own rows pulled back)", wholeSyncs, peaks["push"]!),
        ("pull of the same rows to a fresh device", pulls, peaks["push pull"]!),
    ] {
        print(String(format: "| %@ | %@ | %.2f | %d | %d MB |", name, summary(values), median(values) / floorMedian, Int(Double(pushRows) / median(values)), peak))
    }
}

// Related pull: N rows, four LinkItems to each LinkOwner, every item before every owner in the
// server's page order (pages of 2,000 rows), so each item's owner arrives in a later page and
// its relationship waits until then. A fresh device pulls them all; the time per row at each N
// shows whether waiting relationships cost more than linearly.
if cases.contains("related") {
    print("")
    print("related pull: N rows (4/5 LinkItem, 1/5 LinkOwner; every item's to-one owner in a later page), fresh device, in process; \(runs) runs")
    print("| N | raw floor | pull, median (range) | × raw floor | µs/row | rows/s | peak RSS after |")
    print("|---|---|---|---|---|---|---|")
    for total in relatedSizes {
        let owners = max(1, total / 5)
        let items = total - owners
        let serverStore = store("related-server-\(total)")
        let serverContainer = try ModelContainer(for: LinkItem.self, LinkOwner.self, configurations: ModelConfiguration(url: serverStore))
        do {
            let context = ModelContext(serverContainer)
            let made = (0..<owners).map { LinkOwner(name: "owner \($0)") }
            for owner in made { context.insert(owner) }
            for index in 0..<items { context.insert(LinkItem(name: "item \(index)", index: index, owner: made[index % owners])) }
            try context.save()
        }
        let relatedServer = try SyncServer(container: serverContainer)
        var floors: [Double] = []
        var pulls: [Double] = []
        for run in 0..<runs {
            floors.append(rawCopy(from: serverStore, tables: ["LinkItem", "LinkOwner"], into: "related-raw-\(total)-\(run)"))
            let fresh = try ModelContainer(
                for: LinkItem.self, LinkOwner.self, configurations: ModelConfiguration(url: store("related-device-\(total)-\(run)")))
            var pulled = 0
            pulls.append(try await seconds { pulled = try await SyncClient(container: fresh, transport: relatedServer).sync().pulled })
            precondition(pulled == total, "pulled \(pulled) rows, not \(total)")
            let linked = try ModelContext(fresh).fetch(FetchDescriptor<LinkItem>()).filter { $0.owner != nil }.count
            precondition(linked == items, "\(linked) of \(items) items have their owner")
        }
        let floorMedian = median(floors)
        let pullMedian = median(pulls)
        print(
            String(
                format: "| %d | %.3f s | %@ | %.2f | %.1f | %d | %d MB |", total, floorMedian, summary(pulls), pullMedian / floorMedian,
                pullMedian / Double(total) * 1e6, Int(Double(total) / pullMedian), peakMegabytes()))
    }
}

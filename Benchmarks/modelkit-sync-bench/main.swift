// modelkit-sync-bench: an initial sync of N rows (eight attributes) to an empty device, in
// process and over HTTP on loopback, beside the raw floor measured in the same run (one SELECT
// of every row on the server, one SQLite transaction of INSERTs on the device), and one changed
// row's push and pull.
//
//     swift run -c release modelkit-sync-bench [--rows 100000] [--runs 3]
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

let rows = option("--rows", default: 100_000)
let runs = option("--runs", default: 3)
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

// The server's rows, written with raw SQL into the table the engine made: setup, not measured.
let serverURL = directory.appendingPathComponent("server.store")
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

/// The floor: every row read on the server, and written on the device in one transaction.
func rawFloor(run: Int) -> Double {
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

var floor: [Double] = []
var inProcess: [Double] = []
var overHTTP: [Double] = []
let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server))
http.start()
let httpURL = URL(string: "http://127.0.0.1:\(http.port)/sync")!
var peaks: [String: Int] = [:]
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

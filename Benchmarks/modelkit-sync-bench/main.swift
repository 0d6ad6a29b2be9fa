// modelkit-sync-bench: an initial sync of N rows (eight attributes) to an empty device, in
// process and over HTTP on loopback, beside the raw floor measured in the same run (one SELECT
// of every row on the server, one SQLite transaction of INSERTs on the device), and one changed
// row's push and pull; a push of N rows made on one device (and the pull of the same rows to a
// fresh device); a pull of rows whose relationships point at rows of later pages; and, on a
// server with scopes, one user's initial sync and pulls on a big server (1,000 users' rows)
// beside a small one holding only that user's rows, with the server's statements per pull.
// And live: a save on one running device to visible in another running device's store; and
// devices: 1,000 running devices on one server (DevicesCase.swift).
//
//     swift run -c release modelkit-sync-bench [--rows 100000] [--runs 3] [--cases initial,push,related,scopes,live]
//         [--push-rows 100000] [--related-rows 2500,5000,10000,20000]
//         [--scope-users 1000] [--scope-notes 100] [--scope-repeats 5] [--show-sql] [--live-saves 50]
//         [--devices 1000] [--device-saves 5] [--idle-seconds 10]
//
// Prints medians (and ranges) of each, the ratio to the floor, rows per second, and the
// process's peak resident memory after each phase.

import Foundation
import ModelKit
import ModelKitSync
import Synchronization
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

// The server of --cases devices, in a child process of its own (see DevicesCase.swift).
if let serverStore = listOption("--devices-server")?.first { try await devicesServer(store: serverStore) }

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
    /// The process's CPU time so far (user and system, every thread): the server's, the
    /// device's and HTTP's together, which other work on a shared machine does not inflate.
    func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    var cpu: [String: [Double]] = [:]
    for run in 0..<runs {
        var start = cpuSeconds()
        floor.append(rawFloor(run: run))
        cpu["raw floor", default: []].append(cpuSeconds() - start)
        peaks["raw floor"] = peakMegabytes()
        let local = try device("in-process-\(run)")
        start = cpuSeconds()
        inProcess.append(try await seconds { _ = try await SyncClient(container: local, transport: server).sync() })
        cpu["in process", default: []].append(cpuSeconds() - start)
        peaks["in process"] = peakMegabytes()
        let remote = try device("http-\(run)")
        start = cpuSeconds()
        overHTTP.append(try await seconds { _ = try await SyncClient(container: remote, transport: HTTPSyncTransport(url: httpURL)).sync() })
        cpu["over HTTP", default: []].append(cpuSeconds() - start)
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

    // One page of the full download, per request: made in process (no encoding), and asked for
    // over HTTP in each form; its size in each.
    final class FirstPull: SyncTransport {
        let server: SyncServer
        let request = Mutex<SyncPullRequest?>(nil)
        init(_ server: SyncServer) { self.server = server }
        func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await server.push(request) }
        func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
            self.request.withLock { $0 = request }
            throw CancellationError()
        }
    }
    let recorder = FirstPull(server)
    _ = try? await SyncClient(container: try device("wire"), transport: recorder).sync()
    let firstPull = recorder.request.withLock { $0 }!
    var pageTimes: [String: [Double]] = [:]
    for _ in 0..<10 {
        pageTimes["in process, no encoding", default: []].append(try await seconds { _ = try await server.pull(firstPull) })
        for (name, format) in [("HTTP, JSON", HTTPSyncTransport.PageFormat.json), ("HTTP, binary", .binary)] {
            let transport = HTTPSyncTransport(url: httpURL, pageFormat: format)
            pageTimes[name, default: []].append(try await seconds { _ = try await transport.pull(firstPull) })
        }
    }
    let handler = SyncHTTPHandler(server: server)
    let requestBody = try JSONEncoder().encode(firstPull)
    var sizes: [String: Int] = [:]
    for (name, accept) in [("HTTP, JSON", "application/json"), ("HTTP, binary", "application/vnd.modelkit-sync")] {
        for gzip in [false, true] {
            var headers = ["Accept": accept]
            if gzip { headers["Accept-Encoding"] = "gzip" }
            sizes[name + (gzip ? " gzip" : "")] = await handler.handle(method: "POST", path: "/sync/pull", headers: headers, body: requestBody).body.count
        }
    }
    http.stop()
    let pageRows = firstPull.limit
    print("| one page of \(pageRows) rows | median (range) | µs a row | bytes (gzip) |")
    print("|---|---|---|---|")
    for name in ["in process, no encoding", "HTTP, JSON", "HTTP, binary"] {
        let size = sizes[name].map { "\($0) (\(sizes[name + " gzip"]!))" } ?? ""
        print(String(format: "| %@ | %@ | %.1f | %@ |", name, summary(pageTimes[name]!), median(pageTimes[name]!) * 1e6 / Double(pageRows), size))
    }

    let floorMedian = median(floor)
    print("| case | median (range) | × raw floor | rows/s | peak RSS after |")
    print("|---|---|---|---|---|")
    print("| raw floor (SELECT on the server, one INSERT transaction on the device) | \(summary(floor)) | 1.00 | \(Int(Double(rows) / floorMedian)) | \(peaks["raw floor"]!) MB |")
    for (name, values) in [("initial sync, in process", inProcess), ("initial sync, HTTP on loopback", overHTTP)] {
        print(String(format: "| %@ | %@ | %.2f | %d | %d MB |", name, summary(values), median(values) / floorMedian, Int(Double(rows) / median(values)), peaks[name.contains("HTTP") ? "over HTTP" : "in process"]!))
    }
    print("| one changed row, push then pull over HTTP | \(summary(roundTrips)) | | | |")
    print("CPU time (every thread), median (range), µs a row: " + ["raw floor", "in process", "over HTTP"].map { name in
        String(format: "%@ %@, %.1f", name, summary(cpu[name]!), median(cpu[name]!) * 1e6 / Double(rows))
    }.joined(separator: "; "))
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

// MARK: - Scopes

/// The scopes case's models: notes a user owns, and projects shared by their members, with
/// their memberships and chores; indexed on the columns the scopes' predicates compare, as a
/// real app would be (to-one columns are indexed by ModelKit itself).
@Model final class ScopedNote {
    #Index<ScopedNote>([\.owner])
    var owner: String
    var title: String
    var body: String
    var edited: Date

    init(owner: String, title: String, body: String, edited: Date) {
        self.owner = owner
        self.title = title
        self.body = body
        self.edited = edited
    }
}

@Model final class SharedProject {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \ProjectMember.project) var members: [ProjectMember] = []
    @Relationship(deleteRule: .cascade, inverse: \ProjectChore.project) var chores: [ProjectChore] = []

    init(name: String) { self.name = name }
}

@Model final class ProjectMember {
    #Index<ProjectMember>([\.userID])
    var userID: String
    var canWrite: Bool
    var project: SharedProject?

    init(userID: String, canWrite: Bool, project: SharedProject?) {
        self.userID = userID
        self.canWrite = canWrite
        self.project = project
    }
}

@Model final class ProjectChore {
    var title: String
    var done: Bool
    var project: SharedProject?

    init(title: String, done: Bool, project: SharedProject?) {
        self.title = title
        self.done = done
        self.project = project
    }
}

/// A user's own notes; projects, their memberships and chores read by members and written by
/// members who may write.
let benchScopes: SyncScopes = {
    var scopes = SyncScopes()
    scopes.set(ScopedNote.self) { user in #Predicate<ScopedNote> { $0.owner == user } }
    scopes.set(
        SharedProject.self,
        read: { user in #Predicate<SharedProject> { p in p.members.contains { $0.userID == user } } },
        write: { user in #Predicate<SharedProject> { p in p.members.contains { $0.userID == user && $0.canWrite } } })
    scopes.set(
        ProjectMember.self,
        read: { user in #Predicate<ProjectMember> { m in m.project?.members.contains { $0.userID == user } == true } },
        write: { user in #Predicate<ProjectMember> { m in m.project?.members.contains { $0.userID == user && $0.canWrite } == true } })
    scopes.set(
        ProjectChore.self,
        read: { user in #Predicate<ProjectChore> { c in c.project?.members.contains { $0.userID == user } == true } },
        write: { user in #Predicate<ProjectChore> { c in c.project?.members.contains { $0.userID == user && $0.canWrite } == true } })
    return scopes
}()

/// A transport in front of a server that counts its pull requests, the time the server spends
/// in them, and the SQL statements the server's contexts run meanwhile (the server's container
/// traces every context it makes; one request at a time here).
final class CountingTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private let lock = NSLock()
    private var counting = 0
    private(set) var pulls = 0
    private(set) var pushes = 0
    private(set) var pullSeconds = 0.0
    private(set) var pullStatements = 0
    private(set) var statements = 0
    /// The SQL of the last pull, when asked for (`--show-sql`).
    private(set) var lastPullSQL: [String] = []
    var keepsSQL = false

    init(server: SyncServer) {
        self.server = server
        server.container.statementTraceOfNewContexts = { [weak self] sql in self?.count(sql) }
    }

    private var lastTraced = ContinuousClock.now

    /// Counts a statement; with `keepsSQL`, keeps its text and the time since the one before
    /// (what the one before took, with the server's work between them).
    private func count(_ sql: String) {
        lock.withLock {
            statements += 1
            guard keepsSQL && counting > 0 else { return }
            let now = ContinuousClock.now
            let gap = now - lastTraced
            lastTraced = now
            let ms = (Double(gap.components.seconds) + Double(gap.components.attoseconds) / 1e18) * 1e3
            lastPullSQL.append(lastPullSQL.isEmpty ? sql : String(format: "(+%.2f ms) ", ms) + sql)
        }
    }

    func reset() {
        lock.withLock {
            pulls = 0
            pushes = 0
            pullSeconds = 0
            pullStatements = 0
        }
    }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        lock.withLock { pushes += 1 }
        return try await server.push(request)
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let before = lock.withLock {
            counting += 1
            lastPullSQL = []
            lastTraced = .now
            return statements
        }
        let start = ContinuousClock.now
        let response = try await server.pull(request)
        let elapsed = ContinuousClock.now - start
        lock.withLock {
            counting -= 1
            pulls += 1
            pullStatements += statements - before
            pullSeconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        return response
    }
}

if cases.contains("scopes") {
    let users = option("--scope-users", default: 1_000)
    let notesPerUser = option("--scope-notes", default: 100)
    let projectsPerUser = 3
    let choresPerProject = 10
    let repeats = option("--scope-repeats", default: 5)
    let showSQL = CommandLine.arguments.contains("--show-sql")
    let measured = "u0"
    let other = "u\(users / 2)"
    let types: [any PersistentModel.Type] = [ScopedNote.self, SharedProject.self, ProjectMember.self, ProjectChore.self]
    let schema = Schema(types)
    // Project p's members are users p, p+1 … p+projectsPerUser-1 (mod users): each user is in
    // `projectsPerUser` projects, and shares each with others. Notes are made in turns, user by
    // user, so a user's notes are spread over the table as notes made over time would be.
    func members(of project: Int) -> [Int] { (0..<projectsPerUser).map { (project + $0) % users } }
    func projects(of user: Int) -> [Int] { (0..<projectsPerUser).map { (user - $0 + users) % users } }

    /// A server store holding `userIndexes`' notes and the projects with any of them as member.
    func makeServer(_ name: String, users userIndexes: [Int]) throws -> ModelContainer {
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: store(name)))
        var context = ModelContext(container)
        var pending = 0
        func saveEvery(_ count: Int) throws {
            pending += count
            if pending >= 10_000 {
                try context.save()
                context = ModelContext(container)
                pending = 0
            }
        }
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
        for round in 0..<notesPerUser {
            for user in userIndexes {
                context.insert(
                    ScopedNote(
                        owner: "u\(user)", title: "note \(round) of u\(user)", body: "some text of a note, \(round), of user \(user)",
                        edited: date + Double(round)))
                try saveEvery(1)
            }
        }
        let wanted = Set(userIndexes.flatMap { projects(of: $0) }).sorted()
        for index in wanted {
            let project = SharedProject(name: "project \(index)")
            context.insert(project)
            for member in members(of: index) { context.insert(ProjectMember(userID: "u\(member)", canWrite: true, project: project)) }
            for chore in 0..<choresPerProject { context.insert(ProjectChore(title: "chore \(chore) of project \(index)", done: false, project: project)) }
            try saveEvery(1 + projectsPerUser + choresPerProject)
        }
        try context.save()
        return container
    }

    let expected = notesPerUser + projectsPerUser * (1 + projectsPerUser + choresPerProject)
    let setupStart = ContinuousClock.now
    let bigContainer = try makeServer("scopes-big", users: Array(0..<users))
    let smallContainer = try makeServer("scopes-small", users: [0])
    let setup = ContinuousClock.now - setupStart
    print("")
    print(
        "scopes: one user's rows (\(expected): \(notesPerUser) notes, \(projectsPerUser) projects of \(projectsPerUser) members and \(choresPerProject) chores) on a big server of \(users) users × \(notesPerUser) notes + \(users) projects (\(users * notesPerUser + users * (1 + projectsPerUser + choresPerProject)) rows) and on a small server of only that user's rows; SQLite server and devices, \(runs) runs alternating big and small (\(repeats) pulls each per run); setup \(setup)"
    )

    struct Side {
        let name: String
        let server: SyncServer
        let counter: CountingTransport
        let http: SyncHTTPServer
        let url: URL
        var initial: [Double] = []
        var initialServer: [Double] = []
        var initialPulls = 0
        var initialStatements = 0
        var initialHTTP: [Double] = []
        var noop: [Double] = []
        var noopServer: [Double] = []
        var noopStatements: [Int] = []
        var unrelated: [Double] = []
        var unrelatedServer: [Double] = []
        var unrelatedStatements: [Int] = []
        var writer: SyncClient?
    }

    func side(_ name: String, _ container: ModelContainer) throws -> Side {
        let server = try SyncServer(container: container, scopes: benchScopes) { request in
            guard let user = request.credentials["user"] else { throw SyncError(.unauthorized, "no user") }
            return user
        }
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server))
        http.start()
        return Side(name: name, server: server, counter: CountingTransport(server: server), http: http, url: URL(string: "http://127.0.0.1:\(http.port)/sync")!)
    }

    func deviceContainer(_ name: String) throws -> ModelContainer {
        try ModelContainer(for: schema, configurations: ModelConfiguration(url: store(name)))
    }

    var sides = [try side("big", bigContainer), try side("small", smallContainer)]
    for index in sides.indices {
        // The other user's device, which writes a note of its own before each pull of (c).
        let writer = try SyncClient(container: try deviceContainer("scopes-writer-\(sides[index].name)"), transport: sides[index].server, credentials: ["user": other])
        try await writer.sync()
        sides[index].writer = writer
    }

    for run in 0..<runs {
        for index in (run % 2 == 0 ? [0, 1] : [1, 0]) {
            var side = sides[index]
            let counter = side.counter
            // (a) One user's initial sync to a fresh device, in process, and over HTTP.
            let local = try deviceContainer("scopes-\(side.name)-\(run)")
            let client = try SyncClient(container: local, transport: counter, credentials: ["user": measured])
            counter.reset()
            var pulled = 0
            side.initial.append(try await seconds { pulled = try await client.sync().pulled })
            precondition(pulled == expected, "\(side.name): pulled \(pulled) rows, not \(expected)")
            side.initialServer.append(counter.pullSeconds)
            side.initialPulls = counter.pulls
            side.initialStatements = counter.pullStatements
            let remote = try deviceContainer("scopes-\(side.name)-http-\(run)")
            let remoteClient = try SyncClient(container: remote, transport: HTTPSyncTransport(url: side.url), credentials: ["user": measured])
            side.initialHTTP.append(try await seconds { pulled = try await remoteClient.sync().pulled })
            precondition(pulled == expected, "\(side.name) over HTTP: pulled \(pulled) rows, not \(expected)")

            // (b) A pull with nothing new at all; (c) one after another user's unrelated write.
            for _ in 0..<repeats {
                counter.keepsSQL = showSQL && run == 0
                counter.reset()
                side.noop.append(try await seconds { pulled = try await client.sync().pulled })
                precondition(pulled == 0 && counter.pulls == 1 && counter.pushes == 0)
                side.noopServer.append(counter.pullSeconds)
                side.noopStatements.append(counter.pullStatements)
                if showSQL && run == 0 { print("\(side.name), nothing new:\n  " + counter.lastPullSQL.joined(separator: "\n  ")) }

                let writerContext = ModelContext(side.writer!.container)
                writerContext.insert(ScopedNote(owner: other, title: "another user's note", body: "unrelated", edited: .now))
                try writerContext.save()
                try await side.writer!.sync()
                counter.keepsSQL = showSQL && run == 0
                counter.reset()
                side.unrelated.append(try await seconds { pulled = try await client.sync().pulled })
                counter.keepsSQL = false
                precondition(pulled == 0 && counter.pulls == 1 && counter.pushes == 0, "\(side.name): pulled \(pulled) in \(counter.pulls) pulls")
                side.unrelatedServer.append(counter.pullSeconds)
                side.unrelatedStatements.append(counter.pullStatements)
                if showSQL && run == 0 { print("\(side.name), after an unrelated write:\n  " + counter.lastPullSQL.joined(separator: "\n  ")) }
            }
            sides[index] = side
        }
    }
    for side in sides { side.http.stop() }

    func range(_ values: [Int]) -> String {
        let sorted = values.sorted()
        return sorted.first == sorted.last ? "\(sorted[0])" : "\(sorted[sorted.count / 2]) (\(sorted.first!)–\(sorted.last!))"
    }
    func ms(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return String(format: "%.2f ms (%.2f–%.2f)", sorted[sorted.count / 2] * 1e3, sorted.first! * 1e3, sorted.last! * 1e3)
    }
    let (big, small) = (sides[0], sides[1])
    print("| case | big server, median (range) | small server, median (range) | big ÷ small | statements per pull, big / small |")
    print("|---|---|---|---|---|")
    for (name, a, b, statements) in [
        (
            "(a) initial sync, fresh device, in process", big.initial, small.initial,
            "\(big.initialStatements / max(1, big.initialPulls)) / \(small.initialStatements / max(1, small.initialPulls)) (\(big.initialStatements) / \(small.initialStatements) in \(big.initialPulls) / \(small.initialPulls) pulls)"
        ),
        ("  of which the server's pulls", big.initialServer, small.initialServer, ""),
        ("(a) initial sync, fresh device, HTTP on loopback", big.initialHTTP, small.initialHTTP, ""),
        ("(b) sync with nothing new (one pull)", big.noop, small.noop, "\(range(big.noopStatements)) / \(range(small.noopStatements))"),
        ("  of which the server's pull", big.noopServer, small.noopServer, ""),
        ("(c) sync after another user's unrelated write (one pull)", big.unrelated, small.unrelated, "\(range(big.unrelatedStatements)) / \(range(small.unrelatedStatements))"),
        ("  of which the server's pull", big.unrelatedServer, small.unrelatedServer, ""),
    ] {
        print("| \(name) | \(ms(a)) | \(ms(b)) | \(String(format: "%.2f", median(a) / median(b))) | \(statements) |")
    }
    print("peak RSS \(peakMegabytes()) MB")
}

if cases.contains("live") {
    // Save to visible: two devices running live against one server over HTTP on loopback; each
    // save on the writer is timed until the reader's store holds it (read every millisecond).
    let saves = option("--live-saves", default: 50)
    let liveServer = try SyncServer(container: try device("live-server"))
    let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: liveServer))
    http.start()
    let url = URL(string: "http://127.0.0.1:\(http.port)/sync")!
    let writer = try device("live-writer")
    let reader = try device("live-reader")
    let writerClient = try SyncClient(container: writer, transport: HTTPSyncTransport(url: url))
    let readerClient = try SyncClient(container: reader, transport: HTTPSyncTransport(url: url))
    let running = [Task { try await writerClient.run() }, Task { try await readerClient.run() }]
    let context = ModelContext(writer)
    func visible(_ name: String) throws -> Bool {
        try ModelContext(reader).fetchCount(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.name == name })) == 1
    }
    var latencies: [Double] = []
    for index in 0..<(saves + 5) {
        let name = "live-\(index)"
        let elapsed = try await seconds {
            context.insert(BenchRow(name: name, count: index, amount: 0, flag: false, date: .now, code: UUID(), note: "", blob: Data()))
            try context.save()
            let deadline = ContinuousClock.now + .seconds(30)
            while try !visible(name) {
                guard ContinuousClock.now < deadline else { throw SyncError(.transportFailed, "\(name) did not reach the reader in 30 s") }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        // The first saves warm both sides up (connections, prepared statements): not counted.
        if index >= 5 { latencies.append(elapsed * 1000) }
    }
    for task in running { task.cancel() }
    http.stop()
    let sorted = latencies.sorted()
    let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    print(
        String(
            format: "live: save on one device to visible in another's store, HTTP on loopback, %d saves: median %.1f ms (%.1f–%.1f), p99 %.1f ms",
            saves, sorted[sorted.count / 2], sorted.first!, sorted.last!, p99))
}

if cases.contains("devices") { try await devicesCase() }

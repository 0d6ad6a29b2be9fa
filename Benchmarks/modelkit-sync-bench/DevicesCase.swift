// --cases devices: many devices running live (`SyncClient.run()`, SQLite stores in the temporary
// directory) on one server over HTTP on loopback. The server runs in a child process, this
// executable started again with --devices-server, so that its CPU time is its own and not the
// clients' (which run here, 1,000 of them on the same two cores): the child answers `cpu` on
// its standard input with its user and system seconds (getrusage).
//
//     --devices 1000 --device-saves 5 --idle-seconds 10

import Foundation
import ModelKit
import ModelKitSync
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child process: a server on the store at `path`, printing its port, then answering `cpu`
/// with its CPU seconds until its standard input closes. Standard input is read on a thread of
/// its own: the main one is the main actor's, which the store's change feed needs free.
func devicesServer(store path: String) async throws -> Never {
    let container = try ModelContainer(for: BenchRow.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
    let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: try SyncServer(container: container)))
    http.start()
    FileHandle.standardOutput.write(Data("port \(http.port)\n".utf8))
    Thread.detachNewThread {
        while let line = readLine() {
            guard line == "cpu" else { continue }
            FileHandle.standardOutput.write(Data("cpu \(processCPUSeconds())\n".utf8))
        }
        exit(0)
    }
    while true { try await Task.sleep(for: .seconds(3600)) }
}

/// This process's CPU seconds so far, user and system.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The server child: started, asked for its CPU time, and ended when this process lets go.
private final class ServerChild {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pending = Data()
    private(set) var port: UInt16 = 0

    init(store: URL) throws {
        process.executableURL = Bundle.main.executableURL
        process.arguments = ["--devices-server", store.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        guard let line = readLine(), line.hasPrefix("port "), let port = UInt16(line.dropFirst(5)) else {
            throw SyncError(.transportFailed, "the server child did not say its port")
        }
        self.port = port
    }

    /// The child's CPU seconds (user and system) so far.
    func cpuSeconds() throws -> Double {
        input.fileHandleForWriting.write(Data("cpu\n".utf8))
        guard let line = readLine(), line.hasPrefix("cpu "), let value = Double(line.dropFirst(4)) else {
            throw SyncError(.transportFailed, "the server child did not say its CPU time")
        }
        return value
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }
}

func devicesCase() async throws {
    let count = option("--devices", default: 1000)
    let saves = option("--device-saves", default: 5)
    let idleSeconds = option("--idle-seconds", default: 10)
    let server = try ServerChild(store: store("devices-server"))
    defer { server.stop() }
    let url = URL(string: "http://127.0.0.1:\(server.port)/sync")!
    // One session for all, allowed a connection per device and then some: URLSession holds a
    // request beyond its per-host limit (6 by default) until another ends, which a held pull does
    // only after its wait.
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = 2 * count + 16
    let session = URLSession(configuration: configuration)

    let setupStart = ContinuousClock.now
    let containers = try (0..<count).map { try device("devices-\($0)") }
    let clients = try containers.map { try SyncClient(container: $0, transport: HTTPSyncTransport(url: url, session: session)) }
    let running = clients.map { client in Task { try await client.run() } }
    let connectStart = ContinuousClock.now
    while clients.contains(where: { $0.status.lastSyncDate == nil }) {
        guard ContinuousClock.now - connectStart < .seconds(300) else {
            let synced = clients.filter { $0.status.lastSyncDate != nil }.count
            throw SyncError(.transportFailed, "only \(synced) of \(count) devices synced within 300 s")
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    let connected = ContinuousClock.now - connectStart
    // The last devices' first pulls answered, their held pulls go out: give them a second.
    try await Task.sleep(for: .seconds(1))
    print("")
    print("devices: \(count) devices running live on one server (a child process) over HTTP on loopback; setup \(connectStart - setupStart), all synced once after \(connected)")

    // Idle: every device connected, nothing saved. Held pulls are renewed every 25 s meanwhile.
    let serverBefore = try server.cpuSeconds()
    let devicesBefore = processCPUSeconds()
    try await Task.sleep(for: .seconds(idleSeconds))
    let serverIdle = (try server.cpuSeconds() - serverBefore) / Double(idleSeconds)
    let devicesIdle = (processCPUSeconds() - devicesBefore) / Double(idleSeconds)

    // Save to visible on all: one save on device 0, until every other device applied it.
    let writer = ModelContext(containers[0])
    var latencies: [Double] = []
    var medians: [Double] = []
    var serverSeconds: [Double] = []
    for index in 0..<saves {
        let serverStart = try server.cpuSeconds()
        let start = Date()
        writer.insert(BenchRow(name: "to-all-\(index)", count: index, amount: 0, flag: false, date: .now, code: UUID(), note: "", blob: Data()))
        try writer.save()
        // A device's sync date moves when the pull that brought the save has been applied.
        var times: [Double] = []
        while true {
            times = clients.dropFirst().compactMap { client in client.status.lastSyncDate.flatMap { $0 > start ? $0.timeIntervalSince(start) : nil } }
            if times.count == count - 1 { break }
            guard Date().timeIntervalSince(start) < 120 else {
                throw SyncError(.transportFailed, "save \(index) reached \(times.count) of \(count - 1) devices in 120 s")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        times.sort()
        latencies.append(times.last ?? 0)
        medians.append(times.isEmpty ? 0 : times[times.count / 2])
        // Settle: the devices' next held pulls go out before the next save.
        try await Task.sleep(for: .seconds(1))
        serverSeconds.append(try server.cpuSeconds() - serverStart)
    }
    for task in running { task.cancel() }
    for task in running { _ = try? await task.value }
    // Every store holds every save: checked once, untimed.
    for (index, container) in containers.enumerated() {
        let rows = try ModelContext(container).fetchCount(FetchDescriptor<BenchRow>())
        precondition(rows == saves, "device \(index) holds \(rows) rows, not \(saves)")
    }
    print(String(format: "  idle, %d s: server %.2f %% of a core; the %d devices (this process) %.2f %% of a core", idleSeconds, serverIdle * 100, count, devicesIdle * 100))
    print("  one save on one device to visible on all \(count - 1) others, \(saves) saves: last device \(summary(latencies)), median device \(summary(medians)); server CPU per save (and the pulls after it) \(summary(serverSeconds))")
    print("  peak RSS of the devices' process \(peakMegabytes()) MB")
}

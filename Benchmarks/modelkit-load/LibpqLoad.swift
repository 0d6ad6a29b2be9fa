import CLibPQ
import Foundation
import Synchronization

/// The same requests written by hand against libpq: a connection per request loop, prepared
/// statements, and the round trips the work needs (a write is BEGIN, INSERT, COMMIT; an update
/// reads, then BEGIN, UPDATE, COMMIT).
final class LibpqLoop {
    private let connection: OpaquePointer
    private var prepared: Set<String> = []

    init(url: URL) throws {
        guard let handle = PQconnectdb(url.absoluteString), PQstatus(handle) == CONNECTION_OK else {
            throw LoadError("libpq cannot connect to \(url)")
        }
        connection = handle
    }

    deinit { PQfinish(connection) }

    func serve(_ request: Request) throws {
        switch request {
        case .write(let key):
            try exec("BEGIN")
            try run("insert", #"INSERT INTO "LoadItem" ("key", "name", "value") VALUES ($1, $2, $3)"#, [String(key), "item \(key)", "\(Double(key))"])
            try exec("COMMIT")
        case .read(let key):
            _ = try read(key)
        case .update(let key):
            let (pk, value) = try read(key)
            try exec("BEGIN")
            try run("update", #"UPDATE "LoadItem" SET "value" = $1 WHERE "_pk" = $2"#, ["\(value + 1)", pk])
            try exec("COMMIT")
        }
    }

    private func read(_ key: Int) throws -> (pk: String, value: Double) {
        let result = try run("read", #"SELECT "_pk", "key", "name", "value" FROM "LoadItem" WHERE "key" = $1 LIMIT 1"#, [String(key)])
        defer { PQclear(result) }
        guard PQntuples(result) == 1 else { throw LoadError("no row with key \(key)") }
        return (String(cString: PQgetvalue(result, 0, 0)), Double(String(cString: PQgetvalue(result, 0, 3))) ?? 0)
    }

    @discardableResult
    private func run(_ name: String, _ sql: String, _ values: [String]) throws -> OpaquePointer? {
        if !prepared.contains(name) {
            let result = PQprepare(connection, name, sql, Int32(values.count), nil)
            defer { PQclear(result) }
            try check(result)
            prepared.insert(name)
        }
        let pointers = values.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        let result = pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
            PQexecPrepared(connection, name, Int32(values.count), buffer.baseAddress, nil, nil, 0)
        }
        do { try check(result) } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    private func exec(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result)
    }

    private func check(_ result: OpaquePointer?) throws {
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw LoadError("libpq: \(String(cString: PQerrorMessage(connection)))")
        }
    }
}

/// Runs `concurrency` libpq loops, each on its own thread and connection, from `start` until
/// `end`; returns the requests done.
func runLibpq(url: URL, workload: Workload, rows: Int, concurrency: Int, process: Int, run: Int, from start: Date, until end: Date) async throws -> Int {
    let done = Counter()
    try await onThreads(concurrency) { loop in
        var requests = RequestSource(workload: workload, rows: rows, stream: process * 1000 + loop, run: run)
        let connection = try LibpqLoop(url: url)
        Thread.sleep(until: start)
        while Date() < end {
            try connection.serve(requests.next())
            done.count.add(1, ordering: .relaxed)
        }
    }
    return done.count.load(ordering: .relaxed)
}

/// Runs `body(loop)` for each of `count` loops, each on an OS thread of its own; returns when
/// all have, throwing what one threw.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) async throws {
    let failure = Mutex<(any Error)?>(nil)
    let finished = DispatchGroup()
    for loop in 0..<count {
        finished.enter()
        Thread.detachNewThread {
            defer { finished.leave() }
            do { try body(loop) } catch { failure.withLock { $0 = error } }
        }
    }
    await withCheckedContinuation { resumed in finished.notify(queue: .global()) { resumed.resume() } }
    if let error = failure.withLock({ $0 }) { throw error }
}

/// Requests served, counted from many threads.
final class Counter: Sendable {
    let count = Atomic<Int>(0)
}

/// Drops `schema` on the server, with what was in it.
func dropSchema(_ schema: String, at server: URL) {
    guard let connection = PQconnectdb(server.absoluteString) else { return }
    defer { PQfinish(connection) }
    PQclear(PQexec(connection, "SET client_min_messages TO warning; DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE"))
}

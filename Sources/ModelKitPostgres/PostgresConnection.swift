import CLibPQ
import Foundation
import ModelKit

/// One libpq connection, used from one isolation domain at a time. A connection that drops
/// fails the operation under way with ``PostgresError/Kind/connectionLost``; the next operation
/// reconnects (prepared statements are prepared again).
final class PostgresConnection: DatabaseConnection {
    private let connection: OpaquePointer
    private let searchPath: String?
    /// Bumped by each reconnection: statements prepared before it prepare again.
    private(set) var session = 0
    private var statementCount = 0
    var changes = 0
    /// Announcements of the transaction under way, sent when it commits.
    private var announcements: [String] = []
    /// The statements that start the transaction under way, held back by ``begin(_:)`` and sent
    /// with its first statement: in the same query string, or in one pipeline with a prepared
    /// statement. A transaction then costs no round trip of its own. Empty once sent.
    private var heldBegin: [String] = []
    /// Whether a transaction's start was sent and its end was not: a connection that drops then
    /// is not reconnected until the transaction is rolled back, so that no statement of it runs
    /// on a new connection, outside it.
    private var isTransactionOpen = false

    /// Connects with libpq's `conninfo` keywords and values, then selects `searchPath` (the
    /// store's PostgreSQL schema, created if missing).
    init(keywords: [String], values: [String], searchPath: String?) throws {
        connection = Self.connect(keywords: keywords, values: values)
        self.searchPath = searchPath
        // Throwing from here on runs deinit, which finishes the connection.
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(kind: .cannotConnect, message: Self.message(of: connection))
        }
        try configureSession()
    }

    deinit { PQfinish(connection) }

    private static func connect(keywords: [String], values: [String]) -> OpaquePointer {
        let keywordPointers = keywords.map { strdup($0) } + [nil]
        let valuePointers = values.map { strdup($0) } + [nil]
        defer {
            keywordPointers.forEach { free($0) }
            valuePointers.forEach { free($0) }
        }
        return keywordPointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { keys in
            valuePointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                PQconnectdbParams(keys.baseAddress, values.baseAddress, 1)
            }
        }
    }

    private func configureSession() throws {
        var setup = "SET client_min_messages TO warning; SET extra_float_digits TO 1"
        if let searchPath {
            let quoted = "\"\(searchPath.replacingOccurrences(of: "\"", with: "\"\""))\""
            setup += "; CREATE SCHEMA IF NOT EXISTS \(quoted); SET search_path TO \(quoted)"
        }
        try run(setup, isSessionSetup: true)
    }

    static func message(of connection: OpaquePointer?) -> String {
        guard let connection, let text = PQerrorMessage(connection) else { return "unknown error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: DatabaseConnection

    func prepare(_ sql: String, parameterCount: Int) throws -> any DatabaseStatement {
        statementCount += 1
        return PostgresStatement(connection: self, name: "modelkit_\(statementCount)", sql: sql, parameterCount: parameterCount)
    }

    func execute(_ sql: String) throws {
        try run(sql)
    }

    func begin(_ sql: String) throws {
        heldBegin = sql.components(separatedBy: "; ")
    }

    /// The held statements that start the transaction, to send now ahead of the next statement.
    func takeHeldBegin() -> [String] {
        defer { heldBegin = [] }
        if !heldBegin.isEmpty { isTransactionOpen = true }
        return heldBegin
    }

    var isInTransaction: Bool {
        guard heldBegin.isEmpty else { return true }
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Held for ``commit()``, which sends it right after the `COMMIT`, in the same round trip;
    /// sent at once outside a transaction.
    /// Not inside the transaction: a `NOTIFY` takes a lock on the server's notification queue
    /// until its transaction ends, so notifying transactions would commit (and wait for their
    /// commit record to be flushed) one at a time, across every instance.
    func notify(_ channel: String, payload: String) throws {
        let sql = "SELECT pg_notify(\(try literal(channel)), \(try literal(payload)))"
        guard isInTransaction else { return try run(sql) }
        announcements.append(sql)
    }

    /// Never reconnects: a transaction on a dropped connection is gone, and a `COMMIT` on a new
    /// one would report success for writes that were never made. The announcements follow the
    /// `COMMIT` in the same query string, each in a transaction of its own; once the `COMMIT`
    /// succeeded, an announcement that fails is dropped (the data is saved, and the payloads are
    /// within PostgreSQL's limit).
    func commit() throws {
        let announced = announcements
        announcements = []
        let opening = takeHeldBegin()
        try send(opening + ["COMMIT"] + announced, committingAt: opening.count)
        isTransactionOpen = false
    }

    /// Sends `statements` as one query string. An error up to the `COMMIT` at `commit` (the
    /// transaction is then rolled back) or from the `COMMIT` throws; after it, the data is
    /// saved, and a failed announcement is dropped.
    private func send(_ statements: [String], committingAt commit: Int) throws {
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(kind: .connectionLost, message: Self.message(of: connection), sql: "COMMIT")
        }
        let sql = statements.joined(separator: "; ")
        guard PQsendQuery(connection, sql) == 1 else {
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: sql)
        }
        var index = 0
        var failure: PostgresError?
        var committed = false
        while let result = PQgetResult(connection) {
            defer {
                PQclear(result)
                index += 1
            }
            guard index <= commit, failure == nil else { continue }
            let status = PQresultStatus(result)
            guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
                failure = error(from: result, sql: statements[index])
                continue
            }
            if index == commit { committed = true }
        }
        if let failure { throw failure }
        guard committed else { throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: "COMMIT") }
    }

    func rollback() throws {
        announcements = []
        // A transaction whose start was never sent has nothing to roll back, and one whose
        // connection dropped was rolled back by the server.
        guard heldBegin.isEmpty else {
            heldBegin = []
            return
        }
        defer { isTransactionOpen = false }
        guard PQstatus(connection) == CONNECTION_OK else { return }
        try run("ROLLBACK")
    }

    /// `text` as a string literal, quoted by libpq for this connection's encoding.
    private func literal(_ text: String) throws -> String {
        try ensureConnected()
        guard let quoted = PQescapeLiteral(connection, text, text.utf8.count) else {
            throw PostgresError(kind: .statementFailed, message: Self.message(of: connection))
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    // MARK: Running

    /// Runs `sql` (one or more statements, no parameters), after the held start of the
    /// transaction, in the same round trip, unless it sets the session up.
    private func run(_ sql: String, isSessionSetup: Bool = false) throws {
        let sql = ((isSessionSetup ? [] : takeHeldBegin()) + [sql]).joined(separator: "; ")
        try withResult(sql: sql, { PQexec($0, sql) }) { result in
            changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        }
    }

    /// Reconnects if the connection dropped since the last operation.
    func ensureConnected() throws {
        guard PQstatus(connection) != CONNECTION_OK else { return }
        guard !isTransactionOpen else {
            throw PostgresError(
                kind: .connectionLost, message: "the connection dropped inside a transaction, which the server rolled back")
        }
        PQreset(connection)
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(kind: .connectionLost, message: Self.message(of: connection))
        }
        session += 1
        try configureSession()
    }

    /// Calls `make` with the connection, checks the result, and hands it to `body` before
    /// clearing it.
    func withResult<R>(sql: String?, _ make: (OpaquePointer) -> OpaquePointer?, _ body: (OpaquePointer) throws -> R) throws -> R {
        let result = try keptResult(sql: sql, make)
        defer { PQclear(result) }
        return try body(result)
    }

    /// Like ``withResult(sql:_:_:)``, but keeps the result for the caller, who clears it.
    func keptResult(sql: String?, _ make: (OpaquePointer) -> OpaquePointer?) throws -> OpaquePointer {
        try ensureConnected()
        guard let result = make(connection) else {
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: sql)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        default:
            defer { PQclear(result) }
            throw error(from: result, sql: sql)
        }
    }

    /// One command of a pipeline: a statement without parameters, or the one `send` queues
    /// (a prepared statement), named `sql` in errors.
    struct PipelineCommand {
        let sql: String
        var send: ((OpaquePointer) -> Int32)? = nil
    }

    /// Sends `commands` in one pipeline, one round trip, and returns the result of the one at
    /// `kept`, which the caller clears. The first of the first `checked` commands that fails is
    /// thrown, naming its statement; the commands after it do not run, and a transaction it was
    /// in must be rolled back. Failures after them (announcements after a `COMMIT`) are dropped.
    /// Never reconnects: a pipeline may carry a transaction's end.
    func pipeline(_ commands: [PipelineCommand], keeping kept: Int, checking checked: Int) throws -> OpaquePointer {
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(kind: .connectionLost, message: Self.message(of: connection), sql: commands[kept].sql)
        }
        guard PQenterPipelineMode(connection) == 1 else {
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: commands[kept].sql)
        }
        defer { PQexitPipelineMode(connection) }
        for command in commands {
            let sent = command.send?(connection) ?? PQsendQueryParams(connection, command.sql, 0, nil, nil, nil, nil, 0)
            guard sent == 1 else { throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: command.sql) }
        }
        guard PQpipelineSync(connection) == 1 else {
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: commands[kept].sql)
        }
        var failure: PostgresError?
        var result: OpaquePointer?
        for (index, command) in commands.enumerated() {
            // Each command's results end with a null one.
            while let next = PQgetResult(connection) {
                let status = PQresultStatus(next)
                if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                    if index == kept, result == nil {
                        result = next
                        continue
                    }
                } else if status != PGRES_PIPELINE_ABORTED, index < checked, failure == nil {
                    failure = error(from: next, sql: command.sql)
                }
                PQclear(next)
            }
        }
        let synced = PQgetResult(connection)
        let isSync = synced.map { PQresultStatus($0) == PGRES_PIPELINE_SYNC } ?? false
        if let synced { PQclear(synced) }
        if let failure {
            if let result { PQclear(result) }
            throw failure
        }
        guard isSync, let result else {
            if let result { PQclear(result) }
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: commands[kept].sql)
        }
        return result
    }

    /// Runs `statement` bound to `values` as the transaction's last statement, then `COMMIT` and
    /// the announcements, in one pipeline: one round trip, and the statement is prepared once
    /// per session rather than parsed with its values each time. Returns its first row.
    func commit(after statement: any DatabaseStatement, values: [SQLValue]) throws -> [SQLValue]? {
        guard let statement = statement as? PostgresStatement else {
            return try commitAfterRunning(statement, values: values)
        }
        let announced = announcements
        announcements = []
        let row = try statement.runThenCommit(values, opening: takeHeldBegin(), then: ["COMMIT"] + announced)
        isTransactionOpen = false
        return row
    }

    private var lostOrFailed: PostgresError.Kind {
        PQstatus(connection) == CONNECTION_OK ? .statementFailed : .connectionLost
    }

    func error(from result: OpaquePointer, sql: String?) -> PostgresError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = PQresultErrorMessage(result).map { String(cString: $0) } ?? Self.message(of: connection)
        // Class 08 is a connection exception; a dropped connection may report no state at all.
        let lost = PQstatus(connection) != CONNECTION_OK || state?.hasPrefix("08") == true || state?.hasPrefix("57P") == true
        return PostgresError(kind: lost ? .connectionLost : .statementFailed, sqlState: state, message: message, sql: sql)
    }

    var handle: OpaquePointer { connection }
}

extension Array where Element == String {
    /// Calls `body` with the strings as C strings, for libpq's parameter arrays.
    func withCStrings<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let pointers = map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

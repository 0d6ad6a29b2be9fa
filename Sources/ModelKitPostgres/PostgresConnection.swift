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
    /// The transaction under way: its held start, whether it is open.
    private var transaction = PostgresTransactionState()

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
        transaction.begin(sql)
    }

    /// The held statements that start the transaction, to send now ahead of the next statement.
    func takeHeldBegin() -> [String] {
        transaction.takeOpening()
    }

    var isInTransaction: Bool {
        transaction.isInTransaction(serverInTransaction: serverInTransaction)
    }

    private var serverInTransaction: Bool {
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Sends `payload` on `channel` now, outside any transaction: the listener's announcements.
    func notify(_ channel: String, payload: String) throws {
        try run("SELECT pg_notify(\(try literal(channel)), \(try literal(payload)))")
    }

    /// Never reconnects: a transaction on a dropped connection is gone, and a `COMMIT` on a new
    /// one would report success for writes that were never made.
    func commit() throws {
        let ending = transaction.commit()
        try send(ending.statements, committingAt: ending.commitIndex)
        transaction.ended()
    }

    /// Sends `statements` as one query string; any failure throws, and the transaction is then
    /// rolled back.
    private func send(_ statements: [String], committingAt commit: Int) throws {
        guard PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(kind: .connectionLost, message: Self.message(of: connection), sql: "COMMIT")
        }
        let sql = statements.joined(separator: "; ")
        guard PQsendQuery(connection, sql) == 1 else {
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: sql)
        }
        var reader = PostgresResultReader(kept: commit)
        var failure: PostgresError?
        var index = 0
        while let result = PQgetResult(connection) {
            if reader.read(command: index, Self.status(of: result)) == .fail { failure = error(from: result, sql: statements[index]) }
            PQclear(result)
            index += 1
        }
        switch reader.outcome(synced: true) {
        case .success: return
        case .failed: throw failure!
        case .incomplete: throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: "COMMIT")
        }
    }

    private static func status(of result: OpaquePointer) -> PostgresResultReader.Status {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK: .succeeded
        case PGRES_PIPELINE_ABORTED: .aborted
        default: .failed
        }
    }

    func rollback() throws {
        if transaction.rollback(connected: PQstatus(connection) == CONNECTION_OK) == .sendRollback { try run("ROLLBACK") }
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
        guard transaction.afterDrop == .reconnect else {
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
    /// `kept`, which the caller clears. The first command that fails is thrown, naming its
    /// statement; the commands after it do not run, and a transaction it was in must be rolled
    /// back. Never reconnects: a pipeline may carry a transaction's end.
    func pipeline(_ commands: [PipelineCommand], keeping kept: Int) throws -> OpaquePointer {
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
        var reader = PostgresResultReader(kept: kept)
        var failure: PostgresError?
        var result: OpaquePointer?
        for (index, command) in commands.enumerated() {
            // Each command's results end with a null one.
            while let next = PQgetResult(connection) {
                switch reader.read(command: index, Self.status(of: next)) {
                case .keep:
                    result = next
                    continue
                case .fail: failure = error(from: next, sql: command.sql)
                case .discard: break
                }
                PQclear(next)
            }
        }
        let synced = PQgetResult(connection)
        let isSync = synced.map { PQresultStatus($0) == PGRES_PIPELINE_SYNC } ?? false
        if let synced { PQclear(synced) }
        switch reader.outcome(synced: isSync) {
        case .success:
            return result!
        case .failed:
            if let result { PQclear(result) }
            throw failure!
        case .incomplete:
            if let result { PQclear(result) }
            throw PostgresError(kind: lostOrFailed, message: Self.message(of: connection), sql: commands[kept].sql)
        }
    }

    /// Runs `statement` bound to `values` as the transaction's last statement, then `COMMIT`, in
    /// one pipeline: one round trip, and the statement is prepared once per session rather than
    /// parsed with its values each time. Returns its first row.
    func commit(after statement: any DatabaseStatement, values: [SQLValue]) throws -> [SQLValue]? {
        guard let statement = statement as? PostgresStatement else {
            return try commitAfterRunning(statement, values: values)
        }
        let ending = transaction.commit()
        let row = try statement.runThenCommit(values, opening: ending.opening, then: ending.trailing)
        transaction.ended()
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

import CLibPQ
import Foundation
import ModelKit

/// A prepared statement on a ``PostgresConnection``: its text (with `$1`, `$2`, … parameters, as
/// ``SQLDialect/postgres`` writes them) is prepared once per session, and each bound value is
/// rendered in the form PostgreSQL's chosen parameter type reads. Its rows come in binary form
/// where every column's type has one ModelKit reads (``PostgresValue/readsBinary(_:)``), else as
/// text.
final class PostgresStatement: DatabaseStatement {
    private unowned let connection: PostgresConnection
    private let name: String
    private let sql: String
    private let parameterCount: Int
    /// The session the statement was prepared in, the parameter types PostgreSQL chose, and the
    /// results' format (1 for binary, 0 for text).
    private var prepared: (session: Int, types: [Oid], resultFormat: Int32)?
    private var values: [SQLValue] = []
    private var result: OpaquePointer?
    private var row = -1
    private var rowCount = 0
    private var columnTypes: [Oid] = []
    private var isBinary = false
    private(set) var columnCount: Int32 = 0

    init(connection: PostgresConnection, name: String, sql: String, parameterCount: Int) {
        self.connection = connection
        self.name = name
        self.sql = sql
        self.parameterCount = parameterCount
    }

    deinit {
        if let result { PQclear(result) }
        if prepared?.session == connection.session {
            PQclear(PQexec(connection.handle, "DEALLOCATE \(name)"))
        }
    }

    func bind(_ values: [SQLValue]) {
        reset()
        self.values = values
    }

    func reset() {
        if let result { PQclear(result) }
        result = nil
        row = -1
    }

    func step() throws -> Bool {
        if result == nil { try execute() }
        row += 1
        return row < rowCount
    }

    func column(_ index: Int32) -> SQLValue {
        guard let result, row < rowCount, PQgetisnull(result, Int32(row), index) == 0 else { return .null }
        let count = Int(PQgetlength(result, Int32(row), index))
        let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), index), count: count)
        if isBinary { return PostgresValue.decode(binary: bytes, type: columnTypes[Int(index)]) }
        return PostgresValue.decode(String(decoding: bytes, as: UTF8.self), type: columnTypes[Int(index)])
    }

    // MARK: Running

    private func execute() throws {
        // Reconnecting starts a new session, without the statements prepared in the old one.
        try connection.ensureConnected()
        if prepared?.session != connection.session { try prepare() }
        // The first statement of a transaction carries its start: one round trip for both.
        let opening = connection.takeHeldBegin()
        let kept = try withRenderedValues { pointers, lengths, formats in
            guard opening.isEmpty else {
                return try connection.pipeline(commands(opening, sending(pointers, lengths, formats)), keeping: opening.count)
            }
            let resultFormat = prepared!.resultFormat
            return try connection.keptResult(sql: sql) { handle in
                PQexecPrepared(handle, name, Int32(parameterCount), pointers, lengths, formats, resultFormat)
            }
        }
        take(kept)
    }

    /// Runs the statement bound to `values` after `opening` and before `trailing` (the `COMMIT`)
    /// in one pipeline; returns its first row.
    func runThenCommit(_ values: [SQLValue], opening: [String], then trailing: [String]) throws -> [SQLValue]? {
        bind(values)
        defer { reset() }
        try connection.ensureConnected()
        if prepared?.session != connection.session { try prepare() }
        let kept = try withRenderedValues { pointers, lengths, formats in
            try connection.pipeline(commands(opening, sending(pointers, lengths, formats), then: trailing), keeping: opening.count)
        }
        take(kept)
        return try step() ? (0..<columnCount).map(column) : nil
    }

    /// Calls `body` with the bound values rendered for the parameter types PostgreSQL chose.
    private func withRenderedValues<R>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws -> R
    ) throws -> R {
        try PostgresValue.withParameters(values, types: prepared!.types, count: parameterCount, sql: sql, body)
    }

    /// The pipeline command that runs the prepared statement with the rendered values.
    private func sending(
        _ pointers: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?
    ) -> PostgresConnection.PipelineCommand {
        let (name, count, resultFormat) = (name, Int32(parameterCount), prepared!.resultFormat)
        return PostgresConnection.PipelineCommand(sql: sql) { handle in
            PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, resultFormat)
        }
    }

    /// `opening`, `statement`, then `trailing`: one pipeline's commands, in one array.
    private func commands(
        _ opening: [String], _ statement: PostgresConnection.PipelineCommand, then trailing: [String] = []
    ) -> [PostgresConnection.PipelineCommand] {
        var commands: [PostgresConnection.PipelineCommand] = []
        commands.reserveCapacity(opening.count + 1 + trailing.count)
        for sql in opening { commands.append(PostgresConnection.PipelineCommand(sql: sql)) }
        commands.append(statement)
        for sql in trailing { commands.append(PostgresConnection.PipelineCommand(sql: sql)) }
        return commands
    }

    /// Keeps `result` as the statement's rows, before the first.
    private func take(_ kept: OpaquePointer) {
        result = kept
        row = -1
        rowCount = Int(PQntuples(kept))
        columnCount = PQnfields(kept)
        // Refilled in place: a statement's rows have the same columns every time.
        columnTypes.removeAll(keepingCapacity: true)
        for column in 0..<columnCount { columnTypes.append(PQftype(kept, column)) }
        isBinary = PQbinaryTuples(kept) == 1
        connection.changes = Int(String(cString: PQcmdTuples(kept))) ?? 0
    }

    /// Prepares the text, letting PostgreSQL choose each parameter's type from its context, and
    /// declaring the types of those it cannot (`SELECT ?`) from the values bound.
    private func prepare() throws {
        do {
            try prepare(declaring: values.map { PostgresValue.declaredType(of: $0) })
        } catch let error as PostgresError where error.sqlState == "42P18" {
            try prepare(declaring: values.map { PostgresValue.fallbackType(of: $0) })
        }
    }

    private func prepare(declaring declared: [Oid]) throws {
        let types = (0..<parameterCount).map { $0 < declared.count ? declared[$0] : 0 }
        try connection.withResult(sql: sql, { handle in PQprepare(handle, name, sql, Int32(parameterCount), types) }) { _ in }
        let (chosen, binary) = try connection.withResult(sql: sql, { PQdescribePrepared($0, name) }) { result in
            let parameters = (0..<Int32(parameterCount)).map { PQparamtype(result, $0) }
            return (parameters, (0..<PQnfields(result)).allSatisfy { PostgresValue.readsBinary(PQftype(result, $0)) })
        }
        prepared = (connection.session, chosen, binary ? 1 : 0)
    }
}

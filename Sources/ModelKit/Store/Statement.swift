import Foundation
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif

/// `SQLITE_TRANSIENT` is a macro that Swift does not import: it tells SQLite to copy bound bytes.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement, SQLite's or a driver's. Owned by its ``Connection``, which caches it by
/// SQL text.
final class Statement {
    private enum Backend {
        case sqlite(OpaquePointer)
        case driver(any DriverStatement)
    }

    private let backend: Backend
    let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        self.sql = sql
        self.connection = connection
        switch connection.backend {
        case .sqlite(let database):
            var handle: OpaquePointer?
            let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
            guard code == SQLITE_OK, let handle else {
                throw SQLiteError(connection: database, code: code, sql: sql)
            }
            backend = .sqlite(handle)
        case .driver(let driver):
            let (text, parameterCount) = connection.dialect.spellingParameters(of: sql)
            backend = .driver(try driver.prepare(text, parameterCount: parameterCount))
        }
    }

    deinit {
        if case .sqlite(let handle) = backend { sqlite3_finalize(handle) }
    }

    /// Clears previous bindings and binds `values` to the parameters, in order.
    func bind(_ values: [SQLValue]) throws {
        switch backend {
        case .sqlite(let handle):
            sqlite3_reset(handle)
            Self.clearBindings(beyond: values.count, of: handle)
            for (offset, value) in values.enumerated() {
                try bind(value, at: Int32(offset + 1), in: handle)
            }
        case .driver(let statement):
            statement.bind(values)
        }
    }

    /// Clears previous bindings and binds `value(i)` to parameter `i + 1`, for each of `count`.
    func bind(count: Int, _ value: (Int) throws -> SQLValue) throws {
        switch backend {
        case .sqlite(let handle):
            sqlite3_reset(handle)
            Self.clearBindings(beyond: count, of: handle)
            for index in 0..<count {
                try bind(value(index), at: Int32(index + 1), in: handle)
            }
        case .driver(let statement):
            statement.bind(try (0..<count).map(value))
        }
    }

    /// Clears the previous run's bindings when `count` new ones leave some of them in place.
    private static func clearBindings(beyond count: Int, of handle: OpaquePointer) {
        if count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
    }

    private func bind(_ value: SQLValue, at index: Int32, in handle: OpaquePointer) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(var text):
            // The string's own UTF-8, without a C-string copy; the 64-bit call, so that lengths
            // past Int32 get SQLITE_TOOBIG instead of overflowing. An empty string still needs a
            // pointer: a null one would bind NULL.
            code = text.withUTF8 { bytes in
                guard let start = bytes.baseAddress else { return sqlite3_bind_text64(handle, index, "", 0, SQLITE_TRANSIENT, UInt8(SQLITE_UTF8)) }
                return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(handle, index, $0, UInt64(bytes.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            // A zero-length blob bound from a null pointer would read back as NULL.
            code = data.isEmpty
                ? sqlite3_bind_zeroblob(handle, index, 0)
                : data.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, UInt64($0.count), SQLITE_TRANSIENT) }
        }
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// Ends the current run, so the statement can be bound and stepped again.
    func reset() {
        switch backend {
        case .sqlite(let handle): sqlite3_reset(handle)
        case .driver(let statement): statement.reset()
        }
    }

    /// The integer in `column` of the current row.
    func int64(at column: Int32) -> Int64 {
        switch backend {
        case .sqlite(let handle): return sqlite3_column_int64(handle, column)
        case .driver(let statement):
            guard case .integer(let value) = statement.column(column) else { return 0 }
            return value
        }
    }

    /// Advances to the next row. Returns false when the statement is done.
    func step() throws -> Bool {
        switch backend {
        case .sqlite(let handle):
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            case let code: throw error(code)
            }
        case .driver(let statement):
            return try statement.step()
        }
    }

    var columnCount: Int32 {
        switch backend {
        case .sqlite(let handle): sqlite3_column_count(handle)
        case .driver(let statement): statement.columnCount
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        while try step() {}
    }

    /// Runs the statement and returns every row, as values.
    func rows(_ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try bind(values)
        var rows: [[SQLValue]] = []
        while try step() {
            rows.append((0..<columnCount).map { column($0) })
        }
        return rows
    }

    /// Runs the bound statement and returns the first column of every row as an integer.
    func int64s() throws -> [Int64] {
        defer { reset() }
        var values: [Int64] = []
        while try step() { values.append(int64(at: 0)) }
        return values
    }

    func column(_ index: Int32) -> SQLValue {
        switch backend {
        case .sqlite(let handle): Self.column(index, of: handle)
        case .driver(let statement): statement.column(index)
        }
    }

    private static func column(_ index: Int32, of handle: OpaquePointer) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            let text = UnsafeBufferPointer(start: sqlite3_column_text(handle, index), count: count)
            return .text(String(decoding: text, as: UTF8.self))
        default:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        }
    }

    private func error(_ code: Int32) -> SQLiteError {
        SQLiteError(connection: connection.handle, code: code, sql: sql)
    }
}

import Foundation
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif

/// `SQLITE_TRANSIENT` is a macro that Swift does not import: it tells SQLite to copy bound bytes.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared SQLite statement. Values bind straight from the caller's closure, and columns are
/// read without a copy of the row.
final class SQLiteStatement: DatabaseStatement {
    let handle: OpaquePointer
    let sql: String

    init(database: OpaquePointer, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(connection: database, code: code, sql: sql)
        }
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ values: [SQLValue]) throws {
        sqlite3_reset(handle)
        clearBindings(beyond: values.count)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(count: Int, _ value: (Int) throws -> SQLValue) throws {
        sqlite3_reset(handle)
        clearBindings(beyond: count)
        for index in 0..<count {
            try bind(value(index), at: Int32(index + 1))
        }
    }

    /// Clears the previous run's bindings when `count` new ones leave some of them in place.
    private func clearBindings(beyond count: Int) {
        if count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
    }

    private func bind(_ value: SQLValue, at index: Int32) throws {
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

    func reset() {
        sqlite3_reset(handle)
    }

    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw error(code)
        }
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func column(_ index: Int32) -> SQLValue {
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
        SQLiteError(connection: sqlite3_db_handle(handle), code: code, sql: sql)
    }
}

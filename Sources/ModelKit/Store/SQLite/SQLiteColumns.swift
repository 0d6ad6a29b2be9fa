import Foundation
#if canImport(SQLite3)
internal import SQLite3
#else
internal import CSQLite
#endif

/// Typed reads of an SQLite statement's current row, for the initializer ``Model()`` generates:
/// a column read as its property's type, without the backend's dynamic dispatch and without
/// boxing it as an ``SQLValue`` first. Each read returns nil when the column holds another type,
/// and the caller falls back to the general path, which decodes or reports the mismatch, so the
/// two paths accept exactly the same values.
@usableFromInline
struct SQLiteColumns {
    @usableFromInline let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    // Each read takes the column's value once and reads its type and contents from it: each
    // `sqlite3_column_*` call enters and leaves the connection's mutex (a call even on a
    // connection opened without one), where `sqlite3_value_*` calls do not. The value is one
    // SQLite's docs call unprotected: safe here, where one thread at a time uses a connection.

    @usableFromInline
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    @usableFromInline
    func integer(_ column: Int32) -> Int64? {
        let value = sqlite3_column_value(handle, column)
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { return nil }
        return sqlite3_value_int64(value)
    }

    /// A REAL, or an INTEGER as a `Double`, as ``SQLValue``'s decoding takes them; nil for a
    /// BLOB (the bit pattern a NaN or negative zero is stored as) and the rest.
    @usableFromInline
    func real(_ column: Int32) -> Double? {
        let value = sqlite3_column_value(handle, column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_INTEGER: return Double(sqlite3_value_int64(value))
        default: return nil
        }
    }

    @usableFromInline
    func text(_ column: Int32) -> String? {
        let value = sqlite3_column_value(handle, column)
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        let text = sqlite3_value_text(value)
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    /// The column as `Value`, for the types read here; nil for the others and for a column of
    /// another stored type. Specialized in the model's initializer, the type tests fold away.
    @inlinable
    func read<Value: ColumnConvertible>(_ column: Int32, as type: Value.Type = Value.self) -> Value? {
        if Value.self == Int.self { return integer(column).map { Int($0) as! Value } }
        if Value.self == String.self { return text(column).map { $0 as! Value } }
        if Value.self == Double.self { return real(column).map { $0 as! Value } }
        if Value.self == Bool.self { return integer(column).map { ($0 != 0) as! Value } }
        if Value.self == Int64.self { return integer(column).map { $0 as! Value } }
        if Value.self == Date.self { return real(column).map { Date(timeIntervalSinceReferenceDate: $0) as! Value } }
        return nil
    }
}

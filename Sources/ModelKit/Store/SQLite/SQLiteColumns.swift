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

    @usableFromInline
    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    @usableFromInline
    func integer(_ column: Int32) -> Int64? {
        guard sqlite3_column_type(handle, column) == SQLITE_INTEGER else { return nil }
        return sqlite3_column_int64(handle, column)
    }

    /// A REAL, or an INTEGER as a `Double`, as ``SQLValue``'s decoding takes them; nil for a
    /// BLOB (the bit pattern a NaN or negative zero is stored as) and the rest.
    @usableFromInline
    func real(_ column: Int32) -> Double? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_FLOAT: sqlite3_column_double(handle, column)
        case SQLITE_INTEGER: Double(sqlite3_column_int64(handle, column))
        default: nil
        }
    }

    @usableFromInline
    func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(handle, column), count: count), as: UTF8.self)
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

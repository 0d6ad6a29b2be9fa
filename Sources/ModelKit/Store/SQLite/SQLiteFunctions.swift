import Foundation

#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

/// The SQL functions every SQLite connection of ModelKit's has, for predicates whose answer only
/// Swift gives exactly.
enum SQLiteFunctions {
    /// `modelkit_localized_standard_contains(text, needle)`: 1 when `text` contains `needle` as
    /// `String.localizedStandardContains` says, 0 when not, NULL when either is NULL. The name
    /// is written out in ``SQLDialect/localizedStandardContains(_:in:)``.
    static let localizedStandardContains = "modelkit_localized_standard_contains"

    /// Registers the functions on the connection `handle`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(
            handle, localizedStandardContains, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, arguments in
                guard count == 2, let arguments, let text = sqlite3_value_text(arguments[0]),
                    let needle = sqlite3_value_text(arguments[1])
                else { return sqlite3_result_null(context) }
                let contains = String(cString: text).localizedStandardContains(String(cString: needle))
                sqlite3_result_int(context, contains ? 1 : 0)
            }, nil, nil, nil)
    }
}

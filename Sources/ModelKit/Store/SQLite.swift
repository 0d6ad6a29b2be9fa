#if canImport(SQLite3)
@_exported import SQLite3
#else
@_exported import CSQLite
#endif

/// `SQLITE_TRANSIENT` is a macro that Swift does not import: it tells SQLite to copy bound bytes.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

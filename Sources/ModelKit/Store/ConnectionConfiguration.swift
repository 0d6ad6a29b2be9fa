/// The settings of every SQLite connection a store opens, in one place, as GRDB's
/// `Configuration.prepareDatabase` keeps them.
struct ConnectionConfiguration: Sendable {
    /// How long a statement waits for another process's lock before it fails with `SQLITE_BUSY`
    /// (which a save reports as ``ModelKitError/storeLocked``), in milliseconds.
    var busyTimeout: Int32 = 5_000
    /// `PRAGMA synchronous` of an on-disk store: with WAL, `NORMAL` loses no committed transaction
    /// when the process dies, and syncs at checkpoints only.
    var synchronous = "NORMAL"
    /// `PRAGMA journal_mode` of an on-disk store, set once by the writer: in WAL, readers never
    /// wait for the writer.
    var journalMode = "WAL"
    /// How many idle reader connections a store keeps for the next contexts.
    var idleReaderLimit = 4

    /// The settings ModelKit uses.
    static let standard = ConnectionConfiguration()

    /// Opens a connection to the database at `path` with these settings.
    func connect(_ path: String, isInMemory: Bool) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: false, busyTimeout: busyTimeout)
        if !isInMemory { try connection.execute("PRAGMA synchronous = \(synchronous)") }
        return connection
    }

    /// Sets the store's journal mode, through its writer.
    func prepareStore(through writer: any DatabaseConnection, isInMemory: Bool) throws {
        if !isInMemory { try writer.execute("PRAGMA journal_mode = \(journalMode)") }
    }
}

import Foundation

/// One container's view of a store: where it is, its identity (kept in the store, so identifiers
/// outlive a launch), whether saves are allowed, and the process-wide ``StoreAccess`` that reads
/// and writes it.
final class Store: @unchecked Sendable {
    let url: URL
    /// The store's identifier, as the store's models share it.
    let identity: StoreIdentity
    var identifier: String { identity.value }
    let allowsSave: Bool
    /// Whether the store has a history, which saves append to.
    let recordsHistory: Bool
    /// The SQL the store speaks.
    var dialect: SQLDialect { access.dialect }
    /// Where large `.externalStorage` values go: beside an on-disk SQLite store; nil in memory
    /// and on PostgreSQL, where they stay in the row.
    let externalFiles: ExternalFiles?
    let access: StoreAccess
    /// During a migration stage, the writer connection, inside the migration's transaction: the
    /// stage's contexts read and write through it. Nil otherwise. Used only on the migrating
    /// thread, which holds the writer.
    let pinnedConnection: Connection?
    /// The custom ``DataStore`` the store stands for, whose models its contexts read and write
    /// through it; nil for the engine's own stores. The engine's store beside it is an empty
    /// one in memory, so that what every store has (a reader, an inbox) is there.
    let custom: CustomStore?

    /// The store as a migration stage sees it: the same access, its writer pinned.
    init(migratingAt url: URL, identifier: String, access: StoreAccess, through writer: Connection) {
        self.url = url
        identity = StoreIdentity(identifier)
        allowsSave = true
        recordsHistory = false
        externalFiles = nil
        self.access = access
        pinnedConnection = writer
        custom = nil
    }

    /// The store of a custom ``DataStore``'s models, beside an empty one in memory.
    convenience init(custom: CustomStore, schema: Schema) throws {
        try self.init(
            driver: SQLiteDriver(path: "file:/modelkit-\(UUID().uuidString)?vfs=memdb", isInMemory: true, displayURL: URL(fileURLWithPath: "/dev/null")),
            allowsSave: true, recordsHistory: false, schema: schema, migrationPlan: nil, custom: custom)
    }

    /// A SQLite store, in its file or in memory: a ``SQLiteDriver``'s database, with large
    /// `.externalStorage` values in files beside the store.
    convenience init(configuration: ModelConfiguration, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        let url = configuration.url
        let path: String
        if configuration.isStoredInMemoryOnly {
            path = "file:/modelkit-\(UUID().uuidString)?vfs=memdb"
        } else {
            path = url.standardizedFileURL.path
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw ModelKitError.cannotOpenStore(url, reason: error.localizedDescription)
            }
        }
        do {
            try self.init(
                driver: SQLiteDriver(path: path, isInMemory: configuration.isStoredInMemoryOnly, displayURL: url),
                allowsSave: configuration.allowsSave, recordsHistory: configuration.recordsHistory, schema: schema,
                migrationPlan: migrationPlan, externalFiles: configuration.isStoredInMemoryOnly ? nil : ExternalFiles(store: url))
        } catch let failure as any DatabaseFailure where failure.databaseError.code == .cannotConnect {
            throw ModelKitError.cannotOpenStore(url, reason: failure.databaseError.message)
        } catch let failure as any DatabaseFailure {
            throw Self.error(for: failure, at: url)
        }
    }

    /// A store in `driver`'s database, SQLite's or another's: checked and migrated in the
    /// writer's turn, its history followed where other processes' commits are read from it, and
    /// other instances' commits heard on the store's own channel where the database announces
    /// them.
    init(
        driver: any DatabaseDriver, allowsSave: Bool, recordsHistory: Bool, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?,
        externalFiles: ExternalFiles? = nil, custom: CustomStore? = nil
    ) throws {
        pinnedConnection = nil
        self.custom = custom
        url = driver.displayURL
        self.allowsSave = allowsSave
        self.externalFiles = externalFiles
        let access = try StoreAccess.open(driver: driver)
        self.access = access
        let url = url
        let identifier: String
        (identifier, self.recordsHistory) = try access.write(trace: nil) { turn in
            let writer = turn.writer
            let (identifier, hasHistory) = try Self.prepare(
                url: url, schema: schema, migrationPlan: migrationPlan, access: access, writer: writer,
                recordsHistory: recordsHistory, allowsSave: allowsSave
            ) {
                try driver.prepareStore(through: writer.backend)
            }
            if hasHistory, access.noticesOtherProcesses { try access.followHistory(in: &turn) }
            // Switching a new file to WAL moves the writer's data version: take that in now, so
            // that the first save does not look like another process's commit.
            try access.publishExternalCommits(&turn)
            return (identifier, hasHistory)
        }
        identity = custom.map { StoreIdentity($0.identifier, keys: $0.keys, entities: schema.entities) } ?? StoreIdentity(identifier, entities: schema.entities)
        try access.listen(on: "modelkit_" + identifier.filter { $0.isLetter || $0.isNumber }.lowercased())
    }

    /// Opens a store in the writer's turn: checks it is ModelKit's or empty (nothing is written to
    /// a database before that), lets `configure` set the connection up, migrates it (by the plan,
    /// if there is one), and makes its history table. Returns the store's identifier and whether
    /// it keeps a history: a store that cannot be written to keeps none, and reading it still works.
    private static func prepare(
        url: URL, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, access: StoreAccess, writer: Connection,
        recordsHistory: Bool, allowsSave: Bool, configure: () throws -> Void = {}
    ) throws -> (identifier: String, hasHistory: Bool) {
        try Migrator(connection: writer).checkOwnership(of: url)
        try configure()
        let identifier =
            if let migrationPlan {
                try PlanMigration(plan: migrationPlan, schema: schema, url: url, access: access, writer: writer).run()
            } else {
                try Migrator(connection: writer).migrate(schema)
            }
        guard recordsHistory else { return (identifier, false) }
        if try HistoryTable.exists(in: writer) {
            if allowsSave { try HistoryTable.upgradeTokens(in: writer) }
            return (identifier, true)
        }
        guard allowsSave else { return (identifier, false) }
        try writer.execute(HistorySQL.create(writer.dialect))
        return (identifier, true)
    }

    /// Runs `body` with the connection that writes for `session`: the pinned connection of a
    /// migration stage, else the session's reader's where ``savesOnContextConnections``, else
    /// the writer, in its turn.
    func write<R>(in session: StoreSession, _ body: (Connection) throws -> R) throws -> R {
        try writeInTurn(trace: session.trace, on: try session.writingReader()) { connection, _ in try body(connection) }
    }

    /// Runs `body` with the store's writer (the pinned connection of a migration stage), in its
    /// turn: for work of the whole store rather than of a context.
    func write<R>(trace: ((String) -> Void)?, _ body: (Connection) throws -> R) throws -> R {
        try writeInTurn(trace: trace, on: nil) { connection, _ in try body(connection) }
    }

    /// ``write(in:_:)``, with the writer's turn when `body` runs in it (nil on another
    /// connection), for what a commit notes there. With `noticingFirst: false`, `body` publishes
    /// other processes' commits itself (see ``StoreAccess/write(trace:noticingFirst:_:)``).
    func writeInTurn<R>(
        trace: ((String) -> Void)?, on reader: StoreReader? = nil, noticingFirst: Bool = true,
        _ body: (Connection, inout StoreAccess.WriterTurn?) throws -> R
    ) throws -> R {
        if let connection = pinnedConnection ?? reader?.connection {
            var outside: StoreAccess.WriterTurn?
            return try body(connection, &outside)
        }
        return try access.write(trace: trace, noticingFirst: noticingFirst) { turn in
            var inTurn: StoreAccess.WriterTurn? = turn
            defer { if let inTurn { turn = inTurn } }
            return try body(turn.writer, &inTurn)
        }
    }

    /// Whether a context saves through its own connection, the one it reads through: where the
    /// database takes writes from many connections at once (PostgreSQL), so that saves of
    /// different contexts run at once and a request needs one connection, not two. SQLite takes
    /// one writer at a time: its saves queue for the store's writer.
    var savesOnContextConnections: Bool { access.driver.writesConcurrently && pinnedConnection == nil }

    /// A reader for a context: the pinned connection of a migration stage, or one of the
    /// access's readers. Give it back with ``checkIn(_:)``.
    func openReader(trace: ((String) -> Void)?) throws -> StoreReader {
        let reader = StoreReader(connection: try pinnedConnection ?? access.reader())
        reader.trace = trace
        return reader
    }

    /// Takes back a reader from ``openReader(trace:)``.
    func checkIn(_ reader: StoreReader) {
        guard reader.connection !== pinnedConnection else { return }
        access.checkIn(reader.connection)
    }

    /// Deletes the history transactions `condition` matches, in a transaction of its own.
    func deleteHistory(where condition: PredicateTerm?, trace: ((String) -> Void)?) throws {
        try write(trace: trace) { connection in
            try connection.transaction { try HistoryTable.delete(where: condition, in: connection) }
        }
    }

    /// What the database's error means for this store, as a ``ModelKitError``: errors cross
    /// from the backend as the engine's own.
    func error(for failure: any DatabaseFailure) -> ModelKitError {
        Self.error(for: failure, at: url)
    }

    private static func error(for failure: any DatabaseFailure, at url: URL) -> ModelKitError {
        let error = failure.databaseError
        switch error.code {
        case .notADatabase: return .notADatabase(url, error)
        case .busy: return .storeLocked(url)
        case .valueTooLarge: return .valueTooLarge(error)
        default: return .database(error)
        }
    }
}

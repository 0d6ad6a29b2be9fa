import Foundation
import Synchronization
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
import ModelKit
import TestSupport
import Testing

/// A store file in a directory of its own, removed when the test is done with it.
final class TemporaryStore {
    let directory: URL
    let url: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelKitTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("test.store")
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func container(for types: any PersistentModel.Type..., allowsSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(url: url, allowsSave: allowsSave)])
    }

    /// Runs raw SQL against the store file, outside ModelKit.
    func sql(_ text: String) throws -> [[String]] {
        try rawSQL(text, at: url)
    }
}

/// Runs raw SQL against a SQLite file, outside ModelKit, and returns its rows as text.
func rawSQL(_ text: String, at url: URL) throws -> [[String]] {
    var db: OpaquePointer?
    guard sqlite3_open(url.path, &db) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
    defer { sqlite3_close(db) }
    var rows: [[String]] = []
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, text, -1, &statement, nil) == SQLITE_OK else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
    }
    defer { sqlite3_finalize(statement) }
    while sqlite3_step(statement) == SQLITE_ROW {
        rows.append((0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL"
        })
    }
    return rows
}

func inMemoryContainer(for types: any PersistentModel.Type..., allowsSave: Bool = true) throws -> ModelContainer {
    try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true, allowsSave: allowsSave)])
}

/// Where a test's store lives, for tests that run against several.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, onDisk, postgres

    /// The SQLite kinds.
    static var allCases: [StoreKind] { [.inMemory, .onDisk] }

    /// The SQLite kinds, and PostgreSQL when a test server is set (see ``PostgresTestDatabase``).
    static var withPostgres: [StoreKind] { allCases + (PostgresTestDatabase.isAvailable ? [.postgres] : []) }

    /// A file, and PostgreSQL when a test server is set: stores that several containers share.
    static var sharedStores: [StoreKind] { [.onDisk] + (PostgresTestDatabase.isAvailable ? [.postgres] : []) }

    var testDescription: String { rawValue }
}

/// A store of one kind for one test. Its containers share it, except in memory, where each
/// container has a store of its own. Files and schemas go when the test is done.
final class TestStore {
    let kind: StoreKind
    private let file: TemporaryStore
    private let postgres: PostgresTestDatabase?

    init(_ kind: StoreKind) throws {
        self.kind = kind
        file = try TemporaryStore()
        postgres = kind == .postgres ? PostgresTestDatabase() : nil
    }

    func container(for types: any PersistentModel.Type...) throws -> ModelContainer {
        try container(forTypes: types)
    }

    func container(forTypes types: [any PersistentModel.Type]) throws -> ModelContainer {
        let schema = Schema(types)
        switch kind {
        case .inMemory: return try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        case .onDisk: return try ModelContainer(for: schema, configurations: [ModelConfiguration(url: file.url)])
        case .postgres: return try ModelContainer(for: schema, configurations: [postgres!.configuration()])
        }
    }

    /// Runs raw SQL against the store, outside ModelKit, with each value as text ("NULL" for
    /// NULL), as SQLite's `sqlite3_column_text` gives it. Not for in-memory stores.
    func sql(_ text: String) throws -> [[String]] {
        guard let postgres else { return try file.sql(text) }
        return try postgres.rows(text)
    }

    /// Whether the store has a table named `name`.
    func tableExists(_ name: String) throws -> Bool {
        switch kind {
        case .postgres: try !sql("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '\(name)'").isEmpty
        default: try !sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(name)'").isEmpty
        }
    }
}

/// A SQLite connection outside ModelKit, as another program would open the store.
final class RawConnection {
    private var db: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
    }

    deinit { sqlite3_close(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(db))])
        }
    }
}

/// Collects ModelKit's log messages while it lives. Every capture receives every message, so
/// tests that capture can run in parallel; none of them replaces another's handler.
final class CapturedModelKitLog: Sendable {
    private let messages = Mutex<[(level: ModelKitDebugLog.Level, text: String)]>([])
    private static let live = Mutex<[ObjectIdentifier: WeakCapture]>([:])
    private static let installed: Void = {
        ModelKitDebugLog.handler = { level, text in
            for capture in live.withLock({ $0.values.compactMap(\.capture) }) {
                capture.messages.withLock { $0.append((level, text)) }
            }
        }
    }()

    init() {
        Self.installed
        Self.live.withLock { $0[ObjectIdentifier(self)] = WeakCapture(capture: self) }
    }

    deinit { _ = Self.live.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) } }

    /// The messages logged at `level` so far.
    func messages(at level: ModelKitDebugLog.Level) -> [String] {
        messages.withLock { $0.filter { $0.level == level }.map(\.text) }
    }
}

private struct WeakCapture: Sendable {
    weak var capture: CapturedModelKitLog?
}

/// The ModelKit error `error` is, or carries: container initializers and history fetches throw
/// ``SwiftDataError``s carrying one.
func modelKitError(_ error: any Error) -> ModelKitError? {
    (error as? ModelKitError) ?? (error as? SwiftDataError)?.underlying
}

/// The database's error `error` reports, as ModelKit reports it from either backend.
func databaseError(_ error: any Error) -> DatabaseError? {
    switch modelKitError(error) {
    case .database(let failure)?, .notADatabase(_, let failure)?, .valueTooLarge(let failure)?: failure
    default: nil
    }
}

/// Runs `modelkit-crash-writer` to completion: `saves` saves of twenty `Entry` rows to the store
/// at `url`, from another process, with the author "crash-writer".
func runCrashWriter(at url: URL, saves: Int) throws -> ChildProcess {
    let process = try ChildProcess(ChildProcess.product("modelkit-crash-writer"), arguments: [url.path, String(saves)], standardOutput: .discard)
    process.waitUntilExit()
    return process
}

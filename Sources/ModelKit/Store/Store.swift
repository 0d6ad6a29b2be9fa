import Foundation
import Synchronization

/// One SQLite database: where it is, and how to open connections to it.
///
/// An in-memory store is a `memdb` database shared by every connection of the process that names it;
/// the store keeps one connection open so the database lives as long as the container.
final class Store: @unchecked Sendable {
    let url: URL
    let identifier: String
    let allowsSave: Bool
    private let path: String
    /// Keeps an in-memory database alive. Used only during `init`, then never again.
    private let keepAlive: Connection

    init(configuration: ModelConfiguration, schema: Schema) throws {
        url = configuration.url
        allowsSave = configuration.allowsSave
        identifier = UUID().uuidString
        if configuration.isStoredInMemoryOnly {
            path = "file:/modelkit-\(identifier)?vfs=memdb"
        } else {
            path = configuration.url.path
            do {
                try FileManager.default.createDirectory(
                    at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw ModelKitError.cannotOpenStore(configuration.url, reason: error.localizedDescription)
            }
        }
        do {
            keepAlive = try Connection(path: path)
        } catch let error as SQLiteError {
            throw ModelKitError.cannotOpenStore(configuration.url, reason: error.message)
        }
        try prepare(keepAlive, configuration: configuration, schema: schema)
    }

    /// Switches the store to WAL mode and migrates it, translating SQLite's errors into what they
    /// mean for the store.
    private func prepare(_ connection: Connection, configuration: ModelConfiguration, schema: Schema) throws {
        do {
            if !configuration.isStoredInMemoryOnly {
                try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
            }
            try Migrator(connection: connection).migrate(schema)
        } catch let error as SQLiteError where error.isCorruption {
            throw ModelKitError.notADatabase(url, error)
        } catch let error as SQLiteError where error.isAccessFailure {
            throw ModelKitError.cannotOpenStore(url, reason: error.message)
        }
    }

    /// Connections contexts have given back, with their statement caches and page caches warm.
    private let idle = Mutex<[IdleConnection]>([])

    /// A connection to the store for a context: an idle one if there is one, else a new one.
    func checkOut() throws -> Connection {
        if let idle = idle.withLock({ $0.popLast() }) { return idle.connection }
        return try Connection(path: path)
    }

    /// Takes back a context's connection, keeping a few for the next contexts.
    func checkIn(_ connection: Connection) {
        connection.trace = nil
        idle.withLock { idle in
            if idle.count < 4 { idle.append(IdleConnection(connection: connection)) }
        }
    }
}

/// A connection no context is using. Connections are not thread-safe, but an idle one is touched
/// by nobody until a context checks it out, so it may cross threads in between.
private struct IdleConnection: @unchecked Sendable {
    let connection: Connection
}

import Foundation

/// One container's view of a store: where it is, its identity (kept in the store, so identifiers
/// outlive a launch), whether saves are allowed, and the process-wide ``StoreAccess`` that reads
/// and writes it.
final class Store: Sendable {
    let url: URL
    let identifier: String
    let allowsSave: Bool
    let access: StoreAccess

    init(configuration: ModelConfiguration, schema: Schema) throws {
        url = configuration.url
        allowsSave = configuration.allowsSave
        let path: String
        if configuration.isStoredInMemoryOnly {
            path = "file:/modelkit-\(UUID().uuidString)?vfs=memdb"
        } else {
            path = configuration.url.standardizedFileURL.path
            do {
                try FileManager.default.createDirectory(
                    at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw ModelKitError.cannotOpenStore(configuration.url, reason: error.localizedDescription)
            }
        }
        let url = url
        do {
            access = try StoreAccess.open(path: path, isInMemory: configuration.isStoredInMemoryOnly)
            let isInMemory = configuration.isStoredInMemoryOnly
            identifier = try access.write(trace: nil) { writer in
                // Nothing is written to a file before it is known to be a ModelKit store, or empty.
                try Migrator(connection: writer).checkOwnership(of: url)
                if !isInMemory { try writer.execute("PRAGMA journal_mode = WAL") }
                return try Migrator(connection: writer).migrate(schema)
            }
        } catch let error as SQLiteError where error.isCorruption {
            throw ModelKitError.notADatabase(url, error)
        } catch let error as SQLiteError where error.isBusy {
            throw ModelKitError.storeLocked(url)
        } catch let error as SQLiteError where error.isAccessFailure {
            throw ModelKitError.cannotOpenStore(url, reason: error.message)
        }
    }

    /// What a SQLite error means for this store, as a ``ModelKitError``.
    func error(for error: SQLiteError) -> ModelKitError {
        if error.isCorruption { return .notADatabase(url, error) }
        if error.isBusy { return .storeLocked(url) }
        if error.isTooBig { return .valueTooLarge(error) }
        return .sqlite(error)
    }
}

import Foundation
import ModelKit
import ModelKitSync

/// A sync server on a new in-memory SQLite store of the fuzzed models, behind its HTTP handler.
struct FuzzServer: Sendable {
    let handler: SyncHTTPHandler
    /// The store's rows when it was made: every input starts from them.
    let empty: Snapshot

    /// Every row of every table of the store, table by table.
    typealias Snapshot = [String: [[SQLValue]]]

    /// Bodies are small here, so that a body over the limit is within the fuzzer's reach.
    init() throws {
        let container = try ModelContainer(for: Schema(fuzzedTypes), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        handler = SyncHTTPHandler(server: try SyncServer(container: container), maximumBodySize: 16 << 10)
        empty = try Self.snapshot(of: container)
    }

    /// The digest the server's pushes and pulls must carry to pass its schema check.
    var fingerprint: String { handler.server.container.schema.replicaFingerprint }

    /// The store's rows now. It costs a read of the whole store, kept small by starting each
    /// input on an empty one.
    func snapshot() throws -> Snapshot {
        try Self.snapshot(of: handler.server.container)
    }

    private static func snapshot(of container: ModelContainer) throws -> Snapshot {
        try ModelContext(container).replicaRead { sql in
            var rows: Snapshot = [:]
            for table in try sql.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
                guard case .text(let name) = table.first else { continue }
                rows[name] = try sql.rows("SELECT * FROM \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
            }
            return rows
        }
    }
}

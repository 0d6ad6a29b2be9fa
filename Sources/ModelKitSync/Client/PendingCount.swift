import Foundation
import ModelKit

/// What the device's history holds that no push has taken yet, kept between counts so that each
/// count reads only the history since the last one.
struct PendingScan: Sendable {
    /// The history token the scan starts after: the last push's end.
    var from: Int64 = -1
    /// The newest history token read.
    var scanned: Int64 = 0
    /// The rows local saves touched since `from`, and whether each was last deleted.
    var rows: [SyncIDs.RowRef: Bool] = [:]
    /// The unanswered push last counted, as stored, and how many rows it holds: decoded once.
    var pending: (json: String, through: Int64, count: Int)?
}

extension ClientPush {
    /// How many rows the next pushes would send: those of the unanswered push, and the rows
    /// local saves touched after it (or after the last push), but for rows made and deleted
    /// before any push took them.
    func pendingCount(_ scan: inout PendingScan) throws -> Int {
        let context = ModelContext(client.container)
        let (pendingJSON, pushedText) = try context.replicaRead { sql in
            (try sql.state(ClientState.pending), try sql.state(ClientState.pushed))
        }
        var unanswered: (through: Int64, count: Int)?
        if let pendingJSON {
            if let known = scan.pending, known.json == pendingJSON {
                unanswered = (known.through, known.count)
            } else {
                let prepared = try SyncJSON.decoder.decode(PreparedPush.self, from: Data(pendingJSON.utf8))
                unanswered = (prepared.through, prepared.request.changes.count)
                scan.pending = (pendingJSON, prepared.through, prepared.request.changes.count)
            }
        }
        let from = unanswered?.through ?? pushedText.flatMap { Int64($0) } ?? 0
        if scan.from != from { scan = PendingScan(from: from, scanned: from, pending: scan.pending) }
        let store = try context.replicaStoreIdentifier()
        while true {
            let after = DefaultHistoryToken(replicaStore: store, number: scan.scanned)
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > after })
            descriptor.fetchLimit = UInt64(Self.transactionsPerPush)
            let transactions = try context.fetchHistory(descriptor)
            for transaction in transactions where transaction.author != SyncClient.author {
                for change in transaction.changes {
                    let identifier = change.changedPersistentIdentifier
                    guard let key = identifier.rowKey, client.schema.entities[identifier.entityName] != nil else { continue }
                    if case .delete = change {
                        scan.rows[SyncIDs.RowRef(entity: identifier.entityName, key: key)] = true
                    } else {
                        scan.rows[SyncIDs.RowRef(entity: identifier.entityName, key: key)] = false
                    }
                }
            }
            guard let last = transactions.last?.token.number else { break }
            scan.scanned = last
            if transactions.count < Self.transactionsPerPush { break }
        }
        let deleted = scan.rows.filter(\.value).map(\.key)
        var count = (unanswered?.count ?? 0) + scan.rows.count - deleted.count
        if !deleted.isEmpty {
            let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
            for (entity, refs) in Dictionary(grouping: deleted, by: \.entity) {
                try ids.load(entity: entity, keys: refs.map(\.key))
                for ref in refs {
                    // Deleted before a push took it: the server never had it.
                    if let gid = try ids.gid(entity: entity, key: ref.key, assigning: false), ids.byGid[gid]?.deleted == false { count += 1 }
                }
            }
        }
        return count
    }
}

import Foundation
import ModelKit
import ModelKitSync

/// One device of the run: its SQLite store, its sync client, and its faulty way to the server.
final class ChaosDevice: Sendable {
    let index: Int
    let name: String
    let container: ModelContainer
    let client: SyncClient
    let transport: ChaosTransport
    /// The history author of the run's own edits.
    static let author = "chaos"

    private struct SyncApplied: Error {}

    init(index: Int, url: URL, server: SyncServer, random: ChaosRandom, ledger: ChaosLedger) throws {
        self.index = index
        name = "d\(index)"
        container = try ModelContainer(for: Schema(ChaosModels.types), configurations: [ModelConfiguration(url: url)])
        transport = ChaosTransport(server: server, name: "d\(index)", random: random, ledger: ledger)
        client = try SyncClient(container: container, transport: transport)
    }

    /// Runs `body` on a fresh context and saves what it did, unless a sync applied the server's
    /// changes since `body` read the store: then again, so that an edit is never made from
    /// values a pull has replaced (an app's lost update, not sync's). Nil when `body` is.
    func edit<R>(_ body: (ModelContext) throws -> R?) throws -> R? {
        for _ in 0..<100 {
            let context = ModelContext(container)
            context.autosaveEnabled = false
            context.author = Self.author
            let seen = try context.replicaRead { try $0.newestHistoryToken(notBy: Self.author) }
            guard let result = try body(context) else { return nil }
            do {
                try context.save { sql, _ in
                    if try sql.newestHistoryToken(notBy: Self.author) != seen { throw SyncApplied() }
                }
                return result
            } catch is SyncApplied {
                continue
            }
        }
        throw ChaosTransport.Fault(description: "\(name): syncs kept applying changes under an edit")
    }

    /// Syncs, recording what the sync reports in `ledger`; throws what the sync throws.
    @discardableResult
    func sync(_ ledger: ChaosLedger) async throws -> SyncReport {
        do {
            let report = try await client.sync()
            let time = Date()
            ledger.log("\(name) sync: pushed \(report.pushed), pulled \(report.pulled), conflicts \(report.conflicts), rejected \(report.rejected)")
            for rejection in report.rejections {
                ledger.rejected(rejection, noteKey: try noteKey(of: rejection), device: index, at: time)
            }
            return report
        } catch {
            ledger.log("\(name) sync failed: \(error)")
            throw error
        }
    }

    /// The key of the note a rejection refused: pushed with a new row, or read from the device.
    private func noteKey(of rejection: SyncRejection) throws -> String? {
        guard rejection.entity == "ChaosNote" else { return nil }
        if case .text(let key)? = rejection.change.fields["key"]?.value { return key }
        let context = ModelContext(container)
        let rows = try context.replicaRead { try $0.rows("SELECT row_key FROM _modelkit_sync_ids WHERE gid = ?", [.text(rejection.id)]) }
        guard case .integer(let key)? = rows.first?.first else { return nil }
        return try context.fetch(FetchDescriptor<ChaosNote>()).first { $0._rowKey == key }?.key
    }
}

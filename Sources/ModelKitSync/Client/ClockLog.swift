import Foundation
import ModelKit

/// The clock readings a device has seen, each with when it saw it, so that an edit is stamped
/// after the readings seen *before* it, not after those a later pull brought: an edit made
/// offline at noon stays a noon edit when it is pushed after a pull of a one o'clock edit, and
/// loses to it. Kept in the state table; entries an unpushed edit can no longer need are folded
/// into one after each push.
struct ClockLog: Equatable {
    struct Entry: Codable, Equatable {
        /// When the device saw the reading, in milliseconds since 1970.
        let at: Int64
        let clock: String
    }

    private(set) var entries: [Entry] = []

    /// The log in `sql`'s state table; a store of an earlier version has one reading, seen
    /// before every edit.
    static func read(in sql: StoreSQL) throws -> ClockLog {
        if let json = try sql.state(ClientState.clocks) {
            return ClockLog(entries: try SyncJSON.decoder.decode([Entry].self, from: Data(json.utf8)))
        }
        return ClockLog(entries: try sql.state(ClientState.clock).map { [Entry(at: 0, clock: $0)] } ?? [])
    }

    func write(in sql: StoreSQL) throws {
        try sql.setState(ClientState.clocks, String(decoding: try SyncJSON.encoder.encode(entries), as: UTF8.self))
    }

    /// The newest reading seen at or before `date`.
    func seen(before date: Date) -> HybridLogicalClock {
        let millis = Self.millis(date)
        return entries.lazy.filter { $0.at <= millis }.compactMap { HybridLogicalClock($0.clock) }.max() ?? .zero
    }

    /// The newest reading of all.
    var newest: HybridLogicalClock { entries.compactMap { HybridLogicalClock($0.clock) }.max() ?? .zero }

    /// Records `clock`, seen at `date`, if it is newer than every reading.
    mutating func record(_ clock: HybridLogicalClock, at date: Date) {
        guard clock > newest else { return }
        entries.append(Entry(at: Self.millis(date), clock: clock.description))
    }

    /// Folds the entries seen at or before `date` into one: edits after it see them all.
    mutating func fold(through date: Date) {
        let millis = Self.millis(date)
        let old = entries.filter { $0.at <= millis }
        guard old.count > 1, let newest = old.compactMap({ HybridLogicalClock($0.clock) }).max() else { return }
        entries = [Entry(at: old.map(\.at).max()!, clock: newest.description)] + entries.filter { $0.at > millis }
    }

    private static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

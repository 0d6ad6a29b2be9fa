import Foundation
@testable import ModelKitSync
import Testing

/// The scopes' two pure deciders, case by case, with no database: the page planner (what a
/// scoped pull sends, tombstones, takes away and lets in) and the write check (which pushed
/// changes the scopes refuse).
@Suite struct ScopePlannerTests {
    // Rows: `M` rows are memos (scoped), `N` rows notes (unscoped), by key.
    static func memo(_ key: Int64) -> SyncIDs.RowRef { SyncIDs.RowRef(entity: "Memo", key: key) }
    static func note(_ key: Int64) -> SyncIDs.RowRef { SyncIDs.RowRef(entity: "Note", key: key) }
    static func gid(_ ref: SyncIDs.RowRef) -> String { "\(ref.entity)-\(ref.key)" }

    struct PageCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// Rows history names, in order.
        let changed: [Int64]
        /// Of the changed rows, those gone from the store.
        let gone: Set<Int64>
        /// The device's view (memo keys).
        let view: Set<Int64>
        /// The memos the user reads now.
        let readable: [Int64]
        let limit: Int
        /// Changed unscoped notes, at the end of `changed`.
        var notes: [Int64] = []
        var goneNotes: Set<Int64> = []
        // What the page must say, as memo keys (notes listed separately).
        var send: [Int64] = []
        var sendNotes: [Int64] = []
        var tombstones: [Int64] = []
        var tombstoneNotes: [Int64] = []
        var leaves: [Int64] = []
        var added: [Int64] = []
        var removed: [Int64] = []
        var more = false
        var testDescription: String { name }
    }

    static let pageCases: [PageCase] = [
        PageCase(name: "a changed row the user reads and the device lacks goes and enters the view", changed: [1], gone: [], view: [], readable: [1], limit: 10, send: [1], added: [1]),
        PageCase(name: "a changed row the user reads and the device holds goes, the view unchanged", changed: [1], gone: [], view: [1], readable: [1], limit: 10, send: [1]),
        PageCase(name: "a changed row the user does not read and the device lacks goes nowhere", changed: [1], gone: [], view: [], readable: [], limit: 10),
        PageCase(name: "a changed row the device holds that the user no longer reads leaves, not deleted", changed: [1], gone: [], view: [1], readable: [], limit: 10, leaves: [1], removed: [1]),
        PageCase(name: "a gone row the device holds is a tombstone, not a leave", changed: [1], gone: [1], view: [1], readable: [], limit: 10, tombstones: [1], removed: [1]),
        PageCase(name: "a gone row the device never held sends nothing", changed: [1], gone: [1], view: [], readable: [], limit: 10),
        PageCase(
            name: "unscoped rows go to every user, and their tombstones too", changed: [], gone: [], view: [], readable: [], limit: 10, notes: [7, 8],
            goneNotes: [8], sendNotes: [7], tombstoneNotes: [8]),
        PageCase(name: "an unchanged row the device holds that the user no longer reads leaves", changed: [], gone: [], view: [1, 2], readable: [2], limit: 10, leaves: [1], removed: [1]),
        PageCase(name: "an unchanged row the user now reads enters", changed: [], gone: [], view: [], readable: [3], limit: 10, send: [3], added: [3]),
        PageCase(
            name: "entering rows fill the page after the changed ones; the rest wait, with more", changed: [1], gone: [], view: [], readable: [1, 2, 3, 4], limit: 3,
            send: [1, 2, 3], added: [1, 2, 3], more: true),
        PageCase(name: "a page filled exactly, nothing left to enter, has no more", changed: [1], gone: [], view: [], readable: [1, 2], limit: 2, send: [1, 2], added: [1, 2]),
        PageCase(name: "changed rows beyond the limit still go; nothing enters, with more", changed: [1, 2, 3], gone: [], view: [], readable: [1, 2, 3, 4], limit: 2, send: [1, 2, 3], added: [1, 2, 3], more: true),
        PageCase(name: "a row history names twice goes once", changed: [1, 1, 2, 1], gone: [], view: [], readable: [1, 2], limit: 10, send: [1, 2], added: [1, 2]),
        PageCase(name: "leaves come in the order of their identifiers", changed: [], gone: [], view: [3, 1, 2], readable: [], limit: 10, leaves: [1, 2, 3], removed: [1, 2, 3]),
        PageCase(
            name: "everything at once", changed: [1, 2, 3, 4], gone: [2, 4], view: [1, 2, 5, 6], readable: [1, 3, 6, 7, 8], limit: 3,
            send: [1, 3, 7], tombstones: [2], leaves: [5], added: [3, 7], removed: [2, 5], more: true),
    ]

    @Test(arguments: pageCases)
    func aScopedPageSendsReadRowsTombstonesHeldOnesAndLetsRowsEnterAndLeave(_ c: PageCase) {
        let readable = Set(c.readable.map(Self.memo))
        let planner = ScopePagePlanner(isScoped: { $0 == "Memo" }, reads: { $0.entity != "Memo" || readable.contains($0) })
        let changed = c.changed.map(Self.memo) + c.notes.map(Self.note)
        let present = Set(changed.filter { $0.entity == "Memo" ? !c.gone.contains($0.key) : !c.goneNotes.contains($0.key) })
        let view = Dictionary(uniqueKeysWithValues: c.view.map { (Self.memo($0), Self.gid(Self.memo($0))) })
        let page = planner.plan(changed: changed, present: present, view: view, readable: c.readable.sorted().map(Self.memo), limit: c.limit)
        #expect(page.send == c.send.map(Self.memo) + c.sendNotes.map(Self.note))
        #expect(page.tombstones == c.tombstones.map(Self.memo) + c.tombstoneNotes.map(Self.note))
        #expect(page.leaves.map(\.gid) == c.leaves.map { Self.gid(Self.memo($0)) })
        #expect(page.leaves.map(\.ref) == c.leaves.map(Self.memo))
        #expect(page.added == c.added.map(Self.memo))
        #expect(Set(page.removed) == Set(c.removed.map { Self.gid(Self.memo($0)) }))
        #expect(page.more == c.more)
        // Whatever the page, nothing of a row the user does not read goes in full.
        #expect(page.send.allSatisfy { $0.entity != "Memo" || readable.contains($0) })
    }

    /// Pages planned one after the other, each applied to the view as the server records it,
    /// bring the device to exactly the rows the user reads, however small the limit.
    @Test(arguments: [1, 2, 3, 5])
    func successivePagesConvergeOnTheReadableRows(limit: Int) {
        let readable = Set<Int64>([2, 3, 5, 8, 9, 10, 11])
        let planner = ScopePagePlanner(isScoped: { _ in true }, reads: { readable.contains($0.key) })
        var view = Dictionary(uniqueKeysWithValues: [1, 2, 4].map { (Self.memo($0), Self.gid(Self.memo($0))) })
        var changed: [SyncIDs.RowRef] = [Self.memo(3), Self.memo(4)]
        var pages = 0
        while true {
            let page = planner.plan(changed: changed, present: Set(changed), view: view, readable: readable.sorted().map(Self.memo), limit: limit)
            for ref in page.added { view[ref] = Self.gid(ref) }
            for gid in page.removed { view = view.filter { $0.value != gid } }
            changed = []
            pages += 1
            if !page.more { break }
            #expect(pages < 20)
            if pages >= 20 { break }
        }
        #expect(Set(view.keys.map(\.key)) == readable)
    }

    // The write check: rows by identifier, each with whether the user reads and writes it.
    struct Row: Equatable {
        let reads: Bool
        let writes: Bool
    }

    struct WriteCase: CustomTestStringConvertible, Sendable {
        let name: String
        /// Rows stored (before) by identifier: (reads, writes).
        let stored: [String: (Bool, Bool)]
        /// Rows as the push leaves them (after).
        let written: [String: (Bool, Bool)]
        let changes: [SyncChange]
        var skip: Set<Int> = []
        /// The indexes refused before the writes and after them.
        var before: Set<Int> = []
        var after: Set<Int> = []
        var testDescription: String { name }
    }

    static let clock = "000000000000001-000000-a"
    static func update(_ id: String, _ fields: [String: SyncField] = ["text": SyncField(value: .text("x"), clock: clock)]) -> SyncChange {
        SyncChange(entity: "Memo", id: id, fields: fields)
    }
    static func ref(_ gid: String) -> [String: SyncField] { ["project": SyncField(value: .reference(gid), clock: clock)] }

    static let writeCases: [WriteCase] = [
        WriteCase(name: "an update of a row the user writes, still written after, passes", stored: ["A": (true, true)], written: ["A": (true, true)], changes: [update("A")]),
        WriteCase(name: "an update of a stored row the user may not write is refused before", stored: ["A": (true, false)], written: ["A": (true, true)], changes: [update("A")], before: [0]),
        WriteCase(name: "an update leaving the row unwritable is refused after", stored: ["A": (true, true)], written: ["A": (true, false)], changes: [update("A")], after: [0]),
        WriteCase(name: "a new row the user writes passes", stored: [:], written: ["N": (true, true)], changes: [update("N")]),
        WriteCase(name: "a new row the user may not write is refused after", stored: [:], written: ["N": (false, false)], changes: [update("N")], after: [0]),
        WriteCase(
            name: "a delete of a stored row the user may not write is refused before", stored: ["A": (true, false)], written: [:],
            changes: [SyncChange(entity: "Memo", id: "A", deleted: true)], before: [0]),
        WriteCase(
            name: "a delete of a row the user writes passes, and is not judged after", stored: ["A": (true, true)], written: ["A": (false, false)],
            changes: [SyncChange(entity: "Memo", id: "A", deleted: true)]),
        WriteCase(name: "a reference to a stored row the user may not read is refused", stored: ["P": (false, false)], written: ["N": (true, true)], changes: [update("N", ref("P"))], before: [0]),
        WriteCase(name: "a link to a stored row the user writes passes", stored: ["P": (true, true)], written: ["N": (true, true)], changes: [update("N", ref("P"))]),
        WriteCase(
            name: "a link to a stored row the user reads but may not write is refused (its inverse changes)", stored: ["P": (true, false)],
            written: ["N": (true, true)], changes: [update("N", ref("P"))], before: [0]),
        WriteCase(
            name: "a to-many unlinking a stored row the user may not write is refused", stored: ["P": (true, false), "A": (true, true)],
            written: ["A": (true, true)],
            changes: [update("A", ["chores": SyncField(value: .references([]), clock: clock, base: .references(["P"]), added: [], removed: ["P"])])],
            before: [0]),
        WriteCase(name: "a reference to a row the server lacks passes the scope check", stored: [:], written: ["N": (true, true)], changes: [update("N", ref("X"))]),
        WriteCase(
            name: "a to-many naming an unread row in its value is refused", stored: ["P": (false, false)], written: ["N": (true, true)],
            changes: [update("N", ["chores": SyncField(value: .references(["P"]), clock: clock)])], before: [0]),
        WriteCase(
            name: "a to-many adding an unread row is refused", stored: ["P": (false, false), "A": (true, true)], written: ["A": (true, true)],
            changes: [update("A", ["chores": SyncField(value: .references([]), clock: clock, base: .references([]), added: ["P"])])], before: [0]),
        WriteCase(
            name: "a to-many removing an unread row is refused", stored: ["P": (false, false), "A": (true, true)], written: ["A": (true, true)],
            changes: [update("A", ["chores": SyncField(value: .references([]), clock: clock, base: .references([]), removed: ["P"])])], before: [0]),
        WriteCase(
            name: "one refused change leaves the others alone", stored: ["A": (true, false), "B": (true, true)], written: ["A": (true, true), "B": (true, true), "N": (true, false)],
            changes: [update("A"), update("B"), update("N")], before: [0], after: [2]),
        WriteCase(name: "skipped changes are not judged", stored: ["A": (true, false)], written: ["A": (false, false)], changes: [update("A")], skip: [0]),
    ]

    @Test(arguments: writeCases)
    func theWriteCheckRefusesChangesTheScopesDoNotAllowBeforeAndAfter(_ c: WriteCase) throws {
        let stored = c.stored.mapValues { Row(reads: $0.0, writes: $0.1) }
        let written = c.written.mapValues { Row(reads: $0.0, writes: $0.1) }
        let before = ScopeWriteCheck<Row>(row: { stored[$0] }, reads: { $0.reads }, writes: { $0.writes })
        let refusedBefore = try before.before(c.changes, skip: c.skip)
        #expect(Set(refusedBefore.keys) == c.before)
        #expect(refusedBefore.values.allSatisfy { $0.code == .outOfScope })
        let after = ScopeWriteCheck<Row>(row: { written[$0] }, reads: { $0.reads }, writes: { $0.writes })
        let refusedAfter = try after.after(c.changes, skip: c.skip.union(refusedBefore.keys))
        #expect(Set(refusedAfter.keys) == c.after)
        for (index, rejection) in refusedBefore.merging(refusedAfter, uniquingKeysWith: { a, _ in a }) {
            #expect(rejection.id == c.changes[index].id)
            #expect(rejection.change == c.changes[index])
        }
    }
}



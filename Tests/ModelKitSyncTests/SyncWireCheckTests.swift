import Foundation
import ModelKit
@testable import ModelKitSync
import Testing

/// Pushes no device of the schema sends are refused whole at the server's boundary, with
/// malformedMessage, and change nothing: first the pure check (``PushCheck``) case by case, then
/// the same pushes and those that need the store sent to servers on SQLite and PostgreSQL.
@Suite struct SyncWireCheckTests {
    static let schema = SyncSchema(Schema(syncedTypes))
    static let clock = "001700000000000-000000-d"

    static func field(_ value: SyncValue, clock: String = clock, base: SyncValue? = nil, added: [String]? = nil, removed: [String]? = nil) -> SyncField {
        SyncField(value: value, clock: clock, base: base, added: added, removed: removed)
    }

    /// A hostile push: its changes, or a request of its own (for the envelope and push id).
    struct Hostile: CustomTestStringConvertible, Sendable {
        let name: String
        let changes: [SyncChange]
        var id = "hostile"
        var device = "d"
        var testDescription: String { name }

        func request(schema: String) -> SyncPushRequest {
            SyncPushRequest(envelope: SyncEnvelope(schema: schema, device: device), id: id, changes: changes)
        }
    }

    static func note(_ fields: [String: SyncField], id: String = "N", deleted: Bool = false) -> [SyncChange] {
        [SyncChange(entity: "Note", id: id, deleted: deleted, fields: fields)]
    }

    /// Pushes whose wrongness the schema alone shows.
    static let wireCases: [Hostile] = [
        Hostile(name: "an empty push identifier", changes: note(["title": field(.text("x"))]), id: ""),
        Hostile(name: "an empty device identifier", changes: note(["title": field(.text("x"))]), device: ""),
        Hostile(name: "an unknown entity", changes: [SyncChange(entity: "Ghost", id: "X", fields: [:])]),
        Hostile(name: "an unknown property", changes: note(["colour": field(.text("red"))])),
        Hostile(name: "the side of a relationship that does not sync", changes: [SyncChange(entity: "Tag", id: "T", fields: ["notes": field(.references(["N"]))])]),
        Hostile(name: "a clock that is no clock", changes: note(["title": field(.text("x"), clock: "1")])),
        Hostile(name: "an empty clock", changes: note(["title": field(.text("x"), clock: "")])),
        Hostile(name: "a clock not in its wire form", changes: note(["title": field(.text("x"), clock: "1700000000000-0-d")])),
        Hostile(name: "a clock with no node", changes: note(["title": field(.text("x"), clock: "001700000000000-000000-")])),
        Hostile(name: "a clock's counter past six digits", changes: note(["title": field(.text("x"), clock: "001700000000000-1000000-d")])),
        Hostile(name: "a row for an attribute", changes: note(["title": field(.reference("T"))])),
        Hostile(name: "rows for an attribute", changes: note(["title": field(.references([]))])),
        Hostile(name: "an attribute value for a to-one", changes: note(["folder": field(.text("F"))])),
        Hostile(name: "rows for a to-one", changes: note(["folder": field(.references(["F"]))])),
        Hostile(name: "a row for a to-many", changes: note(["tags": field(.reference("T"))])),
        Hostile(name: "no value for a to-many", changes: note(["tags": field(.null)])),
        Hostile(name: "an attribute's base of a row", changes: note(["title": field(.text("x"), base: .reference("T"))])),
        Hostile(name: "a to-one's base of rows", changes: note(["folder": field(.reference("F"), base: .references(["F"]))])),
        Hostile(name: "a to-many's base of an attribute value", changes: note(["tags": field(.references(["T"]), base: .integer(1))])),
        Hostile(name: "rows added to a to-one", changes: note(["folder": field(.reference("F"), added: ["F"])])),
        Hostile(name: "rows removed from an attribute", changes: note(["title": field(.text("x"), removed: [])])),
        Hostile(name: "a deletion with fields", changes: note(["title": field(.text("x"))], deleted: true)),
        Hostile(name: "an empty row identifier", changes: note(["title": field(.text("x"))], id: "")),
        Hostile(name: "a row identifier with a comma", changes: note(["title": field(.text("x"))], id: "N,M")),
        Hostile(name: "an empty related identifier", changes: note(["folder": field(.reference(""))])),
        Hostile(name: "a related identifier with a comma", changes: note(["tags": field(.references(["T"]), added: ["T,U"])])),
        Hostile(
            name: "a row pushed as two entities",
            changes: [
                SyncChange(entity: "Tag", id: "X", fields: ["name": field(.text("x"))]),
                SyncChange(entity: "Folder", id: "X", fields: ["name": field(.text("x"))]),
            ]),
        Hostile(
            name: "a relationship to a row the push makes as another entity",
            changes: [SyncChange(entity: "Tag", id: "Y", fields: ["name": field(.text("y"))])] + note(["folder": field(.reference("Y"))])),
    ]

    /// Pushes shaped as devices send them: the check lets each through.
    static let clientShapes: [Hostile] = [
        Hostile(
            name: "a new row, every field",
            changes: note([
                "title": field(.text("m")), "body": field(.text("")), "pinned": field(.integer(0)), "folder": field(.null),
                "tags": field(.references(["T"]), base: nil, added: ["T"], removed: []),
            ], id: "M")),
        Hostile(
            name: "edits with bases, a to-many's added and removed",
            changes: note([
                "title": field(.text("y"), base: .text("x")), "folder": field(.reference("F"), base: .null),
                "tags": field(.references(["U"]), base: .references(["T"]), added: ["U"], removed: ["T"]),
            ])),
        Hostile(name: "a deletion", changes: note([:], deleted: true)),
        Hostile(
            name: "a row twice, then deleted",
            changes: [
                SyncChange(entity: "Tag", id: "X", fields: ["name": field(.text("x"))]),
                SyncChange(entity: "Tag", id: "X", fields: ["name": field(.text("y"), clock: "001700000000000-000001-d", base: .text("x"))]),
                SyncChange(entity: "Tag", id: "X", deleted: true),
            ]),
        Hostile(
            name: "a subclass's row, its clock's node a UUID",
            changes: [SyncChange(entity: "TodoTask", id: "K", fields: ["title": field(.text("k"), clock: "001700000000000-000000-2f1c0a3e-9b7d-4c1e-8e0a-0b6a1f2d3c4e")])]),
    ]

    @Test(arguments: wireCases)
    func aPushTheSchemaShowsNoDeviceSendsIsRefusedAsMalformed(_ hostile: Hostile) throws {
        let error = try #require(throws: SyncError.self) { try PushCheck(schema: Self.schema).check(hostile.request(schema: Self.schema.fingerprint)) }
        #expect(error.code == .malformedMessage)
        if let change = hostile.changes.last, !hostile.id.isEmpty, !hostile.device.isEmpty {
            #expect(error.message.contains(change.entity), "\(error.message)")
        }
    }

    @Test(arguments: clientShapes)
    func aPushShapedAsDevicesSendItPassesTheCheck(_ push: Hostile) throws {
        try PushCheck(schema: Self.schema).check(push.request(schema: Self.schema.fingerprint))
    }

    @Test func thePlannerRefusesAClockItCannotReadInsteadOfTakingItAsZero() throws {
        let change = SyncChange(entity: "Counter", id: "c", fields: ["name": Self.field(.text("c"), clock: "soon")])
        let error = try #require(throws: SyncError.self) { try PushPlanner(schema: Self.schema, policies: SyncPolicies()).plan([change], snapshot: PushSnapshot()) }
        #expect(error.code == .malformedMessage)
    }

    // MARK: Against a store

    /// Stored: folder F, tags T ("work") and V (deleted), note N in F tagged T, item I, task
    /// K, a deleted folder G, and tag U merged into T (it was pushed with T's name).
    static func store(_ server: SyncServer) async throws {
        let envelope = SyncEnvelope(schema: server.schema.fingerprint, device: "d")
        func push(_ id: String, _ changes: [SyncChange]) async throws {
            let answer = try await server.push(SyncPushRequest(envelope: envelope, id: id, changes: changes))
            #expect(answer.rejections.isEmpty)
        }
        try await push("s1", [
            SyncChange(entity: "Folder", id: "F", fields: ["name": field(.text("inbox"))]),
            SyncChange(entity: "Folder", id: "G", fields: ["name": field(.text("old"))]),
            SyncChange(entity: "Tag", id: "T", fields: ["name": field(.text("work"))]),
            SyncChange(entity: "Tag", id: "V", fields: ["name": field(.text("gone"))]),
            SyncChange(entity: "Note", id: "N", fields: [
                "title": field(.text("n")), "body": field(.text("")), "pinned": field(.integer(0)), "folder": field(.reference("F")),
                "tags": field(.references(["T"]), added: ["T"], removed: []),
            ]),
            SyncChange(entity: "Item", id: "I", fields: ["title": field(.text("i"))]),
            SyncChange(entity: "TodoTask", id: "K", fields: ["title": field(.text("k")), "done": field(.integer(0))]),
        ])
        try await push("s2", [SyncChange(entity: "Folder", id: "G", deleted: true), SyncChange(entity: "Tag", id: "V", deleted: true)])
        try await push("s3", [SyncChange(entity: "Tag", id: "U", fields: ["name": field(.text("work"))])])
    }

    /// Pushes whose wrongness shows against the stored rows of ``store(_:)``.
    static let storeCases: [Hostile] = [
        Hostile(name: "a stored row pushed as another entity", changes: note(["title": field(.text("x"))], id: "T")),
        Hostile(name: "a subclass's stored row pushed as its superclass", changes: [SyncChange(entity: "Item", id: "K", fields: ["title": field(.text("x"))])]),
        Hostile(name: "a superclass's stored row pushed as a subclass", changes: [SyncChange(entity: "TodoTask", id: "I", fields: ["done": field(.integer(1))])]),
        Hostile(name: "a merged row pushed as another entity", changes: note(["title": field(.text("x"))], id: "U")),
        Hostile(name: "a deleted row pushed as another entity", changes: note([:], id: "G", deleted: true)),
        Hostile(name: "a to-one to a stored row of another entity", changes: note(["folder": field(.reference("T"))])),
        Hostile(name: "a to-one to a merged row of another entity", changes: note(["folder": field(.reference("U"))])),
        Hostile(name: "a to-one to a deleted row of another entity", changes: note(["folder": field(.reference("V"))])),
        Hostile(name: "a to-one's base naming a row of another entity", changes: note(["folder": field(.reference("F"), base: .reference("T"))])),
        Hostile(name: "a to-many holding a stored row of another entity", changes: note(["tags": field(.references(["F", "T"]))])),
        Hostile(name: "a to-many adding a stored row of another entity", changes: note(["tags": field(.references(["I", "T"]), base: .references(["T"]), added: ["I"], removed: [])])),
        Hostile(name: "a to-many removing a stored row of another entity", changes: note(["tags": field(.references(["T"]), base: .references(["T"]), added: [], removed: ["F"])])),
        Hostile(name: "a new row's to-one to a stored row of another entity", changes: note(["title": field(.text("m")), "body": field(.text("")), "pinned": field(.integer(0)), "folder": field(.reference("I"))], id: "M")),
    ]

    /// What ``store(_:)`` leaves, as a push's snapshot reads it.
    static func storedSnapshot() -> PushSnapshot {
        func row(_ entity: String, _ values: [String: SyncValue]?) -> PushSnapshot.Row {
            var clocks = FieldRecord()
            for name in (values ?? [:]).keys { clocks[name] = .init(base: nil, clock: clock) }
            return PushSnapshot.Row(entity: entity, version: 1, values: values, clocks: clocks)
        }
        var snapshot = PushSnapshot()
        snapshot.rows["F"] = row("Folder", ["name": .text("inbox")])
        snapshot.rows["G"] = row("Folder", nil)
        snapshot.rows["T"] = row("Tag", ["name": .text("work")])
        snapshot.rows["V"] = row("Tag", nil)
        snapshot.rows["N"] = row("Note", [
            "title": .text("n"), "body": .text(""), "pinned": .integer(0), "folder": .reference("F"), "tags": .references(["T"]),
        ])
        snapshot.rows["I"] = row("Item", ["title": .text("i")])
        snapshot.rows["K"] = row("TodoTask", ["title": .text("k"), "done": .integer(0)])
        snapshot.aliases["U"] = "T"
        return snapshot
    }

    @Test(arguments: storeCases)
    func aPushNamingAStoredRowAsAnotherEntityIsRefusedByThePlanner(_ hostile: Hostile) throws {
        let error = try #require(throws: SyncError.self) {
            try PushPlanner(schema: Self.schema, policies: SyncPolicies()).plan(hostile.changes, snapshot: Self.storedSnapshot())
        }
        #expect(error.code == .malformedMessage)
    }

    @Test func aRowMergedIntoAnotherClassOfItsHierarchyIsChangedAsThatRow() throws {
        var snapshot = Self.storedSnapshot()
        snapshot.aliases["J"] = "I"
        let change = SyncChange(entity: "TodoTask", id: "J", fields: [
            "title": Self.field(.text("j"), clock: "001700000000001-000000-d"), "done": Self.field(.integer(1), clock: "001700000000001-000000-d"),
        ])
        let plan = try PushPlanner(schema: Self.schema, policies: SyncPolicies()).plan([change], snapshot: snapshot)
        #expect(plan.updates.map(\.gid) == ["I"] && plan.updates.map(\.entity) == ["Item"])
        #expect(plan.updates.first?.values == ["title": .text("j")])
    }

    /// Everything a server keeps of its store: a full download, and what the sync tables hold.
    struct Kept: Equatable {
        var changes: [SyncChange] = []
        var merged: [String: String] = [:]
        var tables: [[SQLValue]] = []
    }

    static func kept(_ server: SyncServer) async throws -> Kept {
        var kept = Kept()
        var cursor: String?
        repeat {
            let page = try await server.pull(SyncPullRequest(envelope: SyncEnvelope(schema: server.schema.fingerprint, device: "reader"), cursor: cursor))
            kept.changes += page.changes
            kept.merged.merge(page.merged) { _, new in new }
            cursor = page.hasMore ? page.cursor : nil
        } while cursor != nil
        kept.tables = try ModelContext(server.container).replicaRead { sql in
            try sql.rows("SELECT gid, entity, row_key, version, deleted, fields FROM \(SyncTables.ids) ORDER BY gid")
                + sql.rows("SELECT gid, target FROM \(SyncTables.merged) ORDER BY gid")
                + sql.rows("SELECT device, push FROM \(SyncTables.pushes) ORDER BY device, push")
        }
        return kept
    }

    @Test(arguments: ServerKind.available)
    func aHostilePushIsRefusedAsMalformedAndChangesNothing(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let server = world.server
        try await Self.store(server)
        #expect(try await Self.kept(server).tables.contains([.text("U"), .text("T")]))
        for (index, hostile) in (Self.wireCases + Self.storeCases).enumerated() {
            let before = try await Self.kept(server)
            var request = hostile.request(schema: server.schema.fingerprint)
            if !request.id.isEmpty { request.id = "hostile\(index)" }
            do {
                let answer = try await server.push(request)
                Issue.record("\(hostile.name): taken, \(answer)")
            } catch let error as SyncError {
                #expect(error.code == .malformedMessage, "\(hostile.name): \(error)")
            }
            #expect(try await Self.kept(server) == before, "\(hostile.name) changed the store")
        }
        // What devices send still goes through.
        for (index, push) in Self.clientShapes.enumerated() {
            var request = push.request(schema: server.schema.fingerprint)
            request.id = "fine\(index)"
            let answer = try await server.push(request)
            #expect(answer.rejections.isEmpty, "\(push.name)")
        }
    }
}

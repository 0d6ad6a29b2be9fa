import Foundation
import ModelKit
@testable import ModelKitSync
import Testing

/// Requests no client of this package sends, which crashed the server: each is now refused
/// (400), and the server neither crashes nor changes its store.
@Suite struct SyncHostileRequestTests {
    let world: SyncWorld
    let handler: SyncHTTPHandler
    let clock = "001700000000000-000000-d"

    init() throws {
        world = try SyncWorld()
        handler = SyncHTTPHandler(server: world.server)
    }

    var envelope: SyncEnvelope { SyncEnvelope(schema: world.server.schema.fingerprint, device: "d") }

    /// The status of a push of `changes`, with the push identifier `id`.
    func push(_ id: String, _ changes: [SyncChange]) async throws -> Int {
        let body = try JSONEncoder().encode(SyncPushRequest(envelope: envelope, id: id, changes: changes))
        return await handler.handle(method: "POST", path: "/sync/push", headers: [:], body: body).status
    }

    /// A folder F, a tag T, a note N and an item I, stored.
    func storeOneOfEach() async throws {
        let status = try await push("p0", [
            SyncChange(entity: "Folder", id: "F", fields: ["name": SyncField(value: .text("inbox"), clock: clock)]),
            SyncChange(entity: "Tag", id: "T", fields: ["name": SyncField(value: .text("work"), clock: clock)]),
            SyncChange(entity: "Note", id: "N", fields: [
                "title": SyncField(value: .text("n"), clock: clock), "body": SyncField(value: .text(""), clock: clock),
                "pinned": SyncField(value: .integer(0), clock: clock),
            ]),
            SyncChange(entity: "Item", id: "I", fields: ["title": SyncField(value: .text("i"), clock: clock)]),
        ])
        #expect(status == 200)
    }

    func notes() throws -> [Note] { try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()) }

    @Test func aPullCursorWithANegativeRootEntityIsRefused() async throws {
        let body = try JSONEncoder().encode(SyncPullRequest(envelope: envelope, cursor: "s:0:-1:0"))
        let response = await handler.handle(method: "POST", path: "/sync/pull", headers: [:], body: body)
        #expect(response.status == 400)
    }

    @Test func aToOneNamingARowOfAnotherEntityIsRefused() async throws {
        try await storeOneOfEach()
        #expect(try await push("p1", [SyncChange(entity: "Note", id: "N", fields: ["folder": SyncField(value: .reference("T"), clock: clock)])]) == 400)
        let new = SyncChange(entity: "Note", id: "M", fields: [
            "title": SyncField(value: .text("m"), clock: clock), "body": SyncField(value: .text(""), clock: clock),
            "pinned": SyncField(value: .integer(0), clock: clock), "folder": SyncField(value: .reference("I"), clock: clock),
        ])
        #expect(try await push("p2", [new]) == 400)
        #expect(try notes().map(\.title) == ["n"])
        #expect(try notes().first?.folder == nil)
    }

    @Test func aToManyNamingARowOfAnotherEntityIsRefused() async throws {
        try await storeOneOfEach()
        #expect(try await push("p1", [SyncChange(entity: "Note", id: "N", fields: ["tags": SyncField(value: .references(["F", "T"]), clock: clock)])]) == 400)
        #expect(try notes().first?.tags.isEmpty == true)
    }

    @Test func aRowPushedAsAnotherEntityIsRefused() async throws {
        try await storeOneOfEach()
        #expect(try await push("p1", [SyncChange(entity: "Note", id: "T", fields: ["title": SyncField(value: .text("x"), clock: clock)])]) == 400)
        // A subclass is not its superclass's row either, nor the other way round.
        #expect(try await push("p2", [SyncChange(entity: "TodoTask", id: "I", fields: ["done": SyncField(value: .integer(1), clock: clock)])]) == 400)
        let twice = [
            SyncChange(entity: "Item", id: "J", fields: ["title": SyncField(value: .text("j"), clock: clock)]),
            SyncChange(entity: "TodoTask", id: "J", fields: ["title": SyncField(value: .text("j"), clock: clock), "done": SyncField(value: .integer(0), clock: clock)]),
        ]
        #expect(try await push("p3", twice) == 400)
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Item>()).map(\.title) == ["i"])
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Tag>()).map(\.name) == ["work"])
    }
}

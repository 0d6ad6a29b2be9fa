import Foundation
import ModelKit
import ModelKitSync
import Testing

@Suite struct SyncBasicsTests {
    @Test(arguments: ServerKind.available)
    func aRowInsertedOnOneDeviceReachesTheServerAndAnotherDeviceAsTheSameRow(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        let folder = Folder(name: "Work")
        a.context.insert(folder)
        let note = Note(title: "Plan", body: "ship it", folder: folder)
        a.context.insert(note)
        note.tags = [Tag(name: "urgent")]
        try a.context.save()

        let pushed = try await a.sync()
        #expect(pushed.pushed == 3)
        let pulled = try await b.sync()
        #expect(pulled.pulled == 3)
        let notes = try b.all(Note.self)
        #expect(notes.map(\.title) == ["Plan"])
        #expect(notes.first?.folder?.name == "Work")
        #expect(notes.first?.tags.map(\.name) == ["urgent"])
        let server = try ModelContext(world.server.container).fetch(FetchDescriptor<Note>())
        #expect(server.map(\.body) == ["ship it"])

        // An edit on B comes back to A, and A's own changes do not come back as pulled.
        let editing = ModelContext(b.container)
        try editing.fetch(FetchDescriptor<Note>())[0].body = "ship it today"
        try editing.save()
        try await b.sync()
        let report = try await a.sync()
        #expect(report.pulled == 1)
        #expect(try a.all(Note.self).map(\.body) == ["ship it today"])
    }
}

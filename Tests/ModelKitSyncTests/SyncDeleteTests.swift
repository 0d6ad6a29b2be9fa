import Foundation
import ModelKit
@testable import ModelKitSync
import Testing

/// Deletes win, cascade everywhere, never come back, and a row made again is a new row.
@Suite struct SyncDeleteTests {
    @Test(arguments: ServerKind.available)
    func aDeleteWinsOverAConcurrentEdit(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        a.context.insert(Note(title: "Doomed"))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        let deleting = ModelContext(a.container)
        deleting.delete(try deleting.fetch(FetchDescriptor<Note>())[0])
        try deleting.save()
        let editing = ModelContext(b.container)
        try editing.fetch(FetchDescriptor<Note>())[0].title = "Edited meanwhile"
        try editing.save()
        try await a.sync()
        try await b.sync()
        try await a.sync()
        #expect(try a.all(Note.self).isEmpty && b.all(Note.self).isEmpty)
        #expect(try ModelContext(world.server.container).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test(arguments: ServerKind.available)
    func aCascadeReachesEveryDevice(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        let folder = Folder(name: "Old")
        a.context.insert(folder)
        for title in ["one", "two"] { a.context.insert(Note(title: title, folder: folder)) }
        a.context.insert(Note(title: "elsewhere"))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        #expect(try b.all(Note.self).count == 3)
        let context = ModelContext(b.container)
        context.delete(try context.fetch(FetchDescriptor<Folder>())[0])
        try context.save()
        try await b.sync()
        try await a.sync()
        for device in [a, b] {
            #expect(try device.all(Folder.self).isEmpty)
            #expect(try device.all(Note.self).map(\.title) == ["elsewhere"])
        }
    }

    @Test(arguments: ServerKind.available)
    func aRowDeletedAndMadeAgainIsANewRowAndNotLost(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        a.context.insert(Note(title: "Same"))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        let context = ModelContext(a.container)
        context.delete(try context.fetch(FetchDescriptor<Note>())[0])
        context.insert(Note(title: "Same", body: "again"))
        try context.save()
        try await a.sync()
        try await b.sync()
        #expect(try b.all(Note.self).map(\.body) == ["again"])
        #expect(try a.all(Note.self).map(\.body) == ["again"])
    }

    @Test(arguments: ServerKind.available)
    func aDeviceBehindTheTombstoneHorizonDownloadsAgainKeepingItsUnpushedChanges(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        for title in ["keep", "gone"] { a.context.insert(Note(title: title)) }
        try a.context.save()
        try await a.sync()
        try await b.sync()
        // A deletes a note; the server then forgets the history that said so.
        let context = ModelContext(a.container)
        context.delete(try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.title == "gone" }))[0])
        try context.save()
        try await a.sync()
        let server = ModelContext(world.server.container)
        try server.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        // B made a note offline meanwhile.
        b.context.insert(Note(title: "B's own"))
        try b.context.save()
        try await b.sync()
        #expect(Set(try b.all(Note.self).map(\.title)) == ["keep", "B's own"])
        try await a.sync()
        #expect(Set(try a.all(Note.self).map(\.title)) == ["keep", "B's own"])
    }

    /// A device deletes a folder while another device files a note in it; the device pulls
    /// the note before its push reaches the server, whose cascade then deletes the note in the
    /// device's own transaction, which the push's answer does not describe.
    @Test(arguments: ServerKind.available)
    func rowsAPushDeletesByCascadeOnTheServerGoFromThePushingDeviceToo(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Folder(name: "inbox")], with: b)
        let folder = try #require(try b.context.fetch(FetchDescriptor<Folder>()).first)
        b.context.insert(Note(title: "filed", folder: folder))
        try b.context.save()
        try await b.sync()

        try a.context.delete(#require(try a.context.fetch(FetchDescriptor<Folder>()).first))
        try a.context.save()
        let client = a.client
        let prepared = try #require(try await client.work { try ClientPush(client: client).prepare(client.envelope) })
        var report = SyncReport()
        try await client.pull(client.envelope, into: &report)
        #expect(try a.all(Note.self).map(\.title) == ["filed"])
        let answer = try await world.server.push(prepared.request)
        try await client.work { try ClientPush(client: client).finish(prepared, answer) }

        try await a.sync()
        try await b.sync()
        #expect(try a.all(Note.self).isEmpty && a.all(Folder.self).isEmpty)
        #expect(try b.all(Note.self).isEmpty && b.all(Folder.self).isEmpty)
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()).isEmpty)
    }
}

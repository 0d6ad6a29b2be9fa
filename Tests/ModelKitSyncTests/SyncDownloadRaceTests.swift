import Foundation
import ModelKit
@testable import ModelKitSync
import Testing

/// A full download reads the server's rows, then catches up through the history after its
/// start; rows neither brought are dropped. Rows the device pushes while the download runs may
/// be missing from pages read before the push: they are kept, with the edits and deletes made
/// after them, whichever way the requests and answers cross.
@Suite struct SyncDownloadRaceTests {
    @Test(arguments: ServerKind.available)
    func rowsTheDevicePushesWhileItsDownloadRunsAreKeptWithTheirLaterEditsAndDeletes(_ kind: ServerKind) async throws {
        let (world, other, device) = try await Self.newDeviceBesideANote(kind)
        let envelope = device.client.envelope
        // The download's page, read on the server before the device pushes.
        let download = try await world.server.pull(SyncPullRequest(envelope: envelope, cursor: nil))
        #expect(download.isFullDownload && download.changes.count == 1)
        let edited = Note(title: "edited", body: "inserted")
        let removed = Note(title: "removed", body: "inserted")
        for note in [Note(title: "kept", body: "inserted"), edited, removed] { device.context.insert(note) }
        try device.context.save()
        var report = SyncReport()
        try await device.client.push(envelope, into: &report)
        #expect(report.pushed == 3)
        // After the push: an edit and a delete, still to push when the download's page arrives.
        edited.body = "edited after the push"
        device.context.delete(removed)
        try device.context.save()
        let client = device.client
        _ = try await client.work { try ClientPull(client: client).apply(download) }

        try await device.sync()
        try await other.sync()
        let want = ["edited=edited after the push", "kept=inserted", "theirs=server"]
        #expect(try Self.notes(in: device.container) == want)
        #expect(try Self.notes(in: other.container) == want)
        #expect(try Self.notes(in: try world.serverContainer()) == want)
    }

    @Test(arguments: ServerKind.available)
    func aPushAnsweredWhileTheCatchUpsLastPageIsOnItsWayIsNotDropped(_ kind: ServerKind) async throws {
        let (world, other, device) = try await Self.newDeviceBesideANote(kind)
        let envelope = device.client.envelope
        let download = try await world.server.pull(SyncPullRequest(envelope: envelope, cursor: nil))
        let client = device.client
        _ = try await client.work { try ClientPull(client: client).apply(download) }
        // The catch-up's last page is fetched; then the device pushes a new note, whose answer
        // is applied before that page.
        let catchUp = try await device.client.fetch(envelope, after: download.cursor, includingOwn: true)
        #expect(!catchUp.response.hasMore && !catchUp.response.isFullDownload)
        device.context.insert(Note(title: "late", body: "inserted"))
        try device.context.save()
        var report = SyncReport()
        try await device.client.push(envelope, into: &report)
        #expect(report.pushed == 1)
        try await device.client.pull(envelope, into: &report, first: catchUp)

        let want = ["late=inserted", "theirs=server"]
        #expect(try Self.notes(in: device.container) == want)
        // The download ended: a row deleted on the server while the device was away would go now.
        #expect(try ClientPull(client: device.client).position().catchingUp == false)
        try await other.sync()
        #expect(try Self.notes(in: other.container) == want)
    }

    @Test(arguments: ServerKind.available)
    func aDeleteMadeBeforeADownloadBringsTheRowGoesOutAfterIt(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let other = try world.device()
        other.context.insert(Note(title: "gone", body: "server"))
        other.context.insert(Note(title: "stays", body: "server"))
        try other.context.save()
        try await other.sync()
        let device = try world.device()
        try await device.sync()
        #expect(try Self.notes(in: device.container) == ["gone=server", "stays=server"])

        // The device downloads everything again (as when it was too far behind), with a delete
        // not pushed yet: the download brings the row, which stays deleted here.
        let client = device.client
        try await client.work { try ClientPull(client: client).startFullDownload() }
        let note = try #require(try device.context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.title == "gone" })).first)
        device.context.delete(note)
        try device.context.save()
        var report = SyncReport()
        try await client.pull(client.envelope, into: &report)
        #expect(try ClientPull(client: client).position().catchingUp == false)

        try await device.sync()
        try await other.sync()
        #expect(try Self.notes(in: device.container) == ["stays=server"])
        #expect(try Self.notes(in: other.container) == ["stays=server"])
    }

    @Test(arguments: ServerKind.available)
    func aDownloadBringingARowWhosePushIsUnansweredKeepsTheEditsMadeSince(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let device = try world.device()
        let note = Note(title: "mine", body: "inserted")
        device.context.insert(note)
        try device.context.save()
        // The push reaches the server; its answer is lost.
        let client = device.client
        let prepared = try #require(try await client.work { try ClientPush(client: client).prepare(client.envelope) })
        _ = try await world.server.push(prepared.request)
        note.body = "edited"
        try device.context.save()
        // A full download (and its catch-up) brings the row as the push left it.
        try await client.work { try ClientPull(client: client).startFullDownload() }
        var report = SyncReport()
        try await client.pull(client.envelope, into: &report)
        #expect(try Self.notes(in: device.container) == ["mine=edited"])

        try await device.sync()
        #expect(try Self.notes(in: device.container) == ["mine=edited"])
        #expect(try Self.notes(in: try world.serverContainer()) == ["mine=edited"])
    }

    /// A world whose server has one note, "theirs", from `other`, and a new device that has not
    /// pulled yet.
    private static func newDeviceBesideANote(_ kind: ServerKind) async throws -> (SyncWorld, Device, Device) {
        let world = try SyncWorld(kind)
        let other = try world.device()
        other.context.insert(Note(title: "theirs", body: "server"))
        try other.context.save()
        try await other.sync()
        return (world, other, try world.device())
    }

    /// The store's notes as `title=body`, sorted.
    private static func notes(in container: ModelContainer) throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Note>()).map { "\($0.title)=\($0.body)" }.sorted()
    }
}

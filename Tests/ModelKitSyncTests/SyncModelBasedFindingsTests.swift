import Foundation
import ModelKit
import ModelKitSync
import Synchronization
import Testing

/// Failures the model-based test (SyncModelBasedTests) found, each reduced to a small
/// deterministic case named after the promise it checks.
@Suite struct SyncModelBasedFindingsTests {
    /// Found by seed 10337063239505734844 (SQLite): a tag renamed offline into a name another
    /// device had given the server made every later sync of the device fail.
    @Test(arguments: ServerKind.available)
    func aTagRenamedIntoANameTheServerHasIsRefusedAndTheDeviceSyncsOn(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Tag(name: "work")], with: b)
        b.context.insert(Tag(name: "home"))
        try b.context.save()
        try await b.sync()
        let renaming = ModelContext(a.container)
        try renaming.fetch(FetchDescriptor<Tag>())[0].name = "home"  // A has not pulled B's "home"
        try renaming.save()
        let report = try await a.sync()
        #expect(report.rejections.map(\.code) == [.uniqueConflict])
        #expect(Set(try a.all(Tag.self).map(\.name)) == ["work", "home"])
        #expect(try await a.sync().rejected == 0)
        #expect(Set(try ModelContext(world.server.container).fetch(FetchDescriptor<Tag>()).map(\.name)) == ["work", "home"])
    }

    /// Found by seed 6319021666394696672 (PostgreSQL, two instances): a note body with a NUL
    /// character made every later sync of the device fail with serverFailed.
    @Test(.enabled(if: ServerKind.available.contains(.postgres), "needs MODELKIT_TEST_POSTGRES_URL"))
    func aStringPostgresCannotHoldIsRefusedAsAnInvalidValueAndTheDeviceSyncsOn() async throws {
        let world = try SyncWorld(.postgres)
        let a = try world.device()
        a.context.insert(Note(title: "kept", body: "before"))
        try a.context.save()
        try await a.sync()
        let editing = ModelContext(a.container)
        try editing.fetch(FetchDescriptor<Note>())[0].body = "nul\u{0}inside"
        try editing.save()
        let report = try await a.sync()
        #expect(report.rejections.map(\.code) == [.invalidValue])
        #expect(try a.all(Note.self).map(\.body) == ["before"])
        #expect(try await a.sync().rejected == 0)
    }

    /// Found by seed 17373500408144952882 (SQLite): a tag deleted and made again with the same
    /// name in one save was gone from the server and every device.
    @Test(arguments: ServerKind.available)
    func aUniqueValueDeletedAndMadeAgainInOneSaveIsOneRowEverywhere(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        let note = Note(title: "n")
        a.context.insert(note)
        note.tags = [Tag(name: "work")]
        try a.context.save()
        try await a.sync()
        try await b.sync()
        let context = ModelContext(a.container)
        context.delete(try context.fetch(FetchDescriptor<Tag>())[0])
        let again = Tag(name: "work")
        context.insert(again)
        try context.fetch(FetchDescriptor<Note>())[0].tags.append(again)
        try context.save()
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<Tag>()).map(\.name) == ["work"])
            #expect(try context.fetch(FetchDescriptor<Note>()).map { $0.tags.map(\.name) } == [["work"]])
        }
    }

    /// Found by seeds 7612205215445056233 (PostgreSQL) and 13729863844206653691 (SQLite), after
    /// main's 6b84333: a tag renamed away and a new tag of its old name, pushed together, left
    /// devices with a note on another tag than the server's.
    @Test(arguments: ServerKind.available)
    func aUniqueValueRenamedAwayAndMadeAgainInOnePushIsTheSameEverywhere(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Tag(name: "urgent")], with: b)
        let context = ModelContext(a.container)
        try context.fetch(FetchDescriptor<Tag>())[0].name = "home"
        try context.save()
        let note = Note(title: "n")
        context.insert(note)
        note.tags = [Tag(name: "urgent")]
        try context.save()
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            #expect(Set(try context.fetch(FetchDescriptor<Tag>()).map(\.name)) == ["home", "urgent"])
            #expect(try context.fetch(FetchDescriptor<Note>()).map { $0.tags.map(\.name) } == [["urgent"]])
        }
    }

    /// Found by seed 13928806989729454190 (PostgreSQL): a device that made a tag, then deleted it
    /// and made it again, all before it pushed, while the server held the name from another
    /// device, had both of its tags merged into the server's, and every later sync failed.
    @Test(arguments: ServerKind.available)
    func twoNewRowsMergedIntoOneTheDeviceLacksBecomeThatRowAndTheDeviceSyncsOn(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        b.context.insert(Tag(name: "naïve"))
        try b.context.save()
        try await b.sync()
        let note = Note(title: "n")
        a.context.insert(note)
        note.tags = [Tag(name: "naïve")]
        try a.context.save()
        let context = ModelContext(a.container)
        context.delete(try context.fetch(FetchDescriptor<Tag>())[0])
        let again = Tag(name: "naïve")
        context.insert(again)
        try context.fetch(FetchDescriptor<Note>())[0].tags.append(again)
        try context.save()
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<Tag>()).map(\.name) == ["naïve"])
            #expect(try context.fetch(FetchDescriptor<Note>()).map { $0.tags.map(\.name) } == [["naïve"]])
        }
    }

    /// Found by seeds 16878035653282997818 (SQLite) and 8137449325891461067: a device that had
    /// not heard of a note's delete gave it a new tag, and the note came back on the server.
    @Test(arguments: ServerKind.available)
    func aNewRowNamingARowDeletedOnTheServerDoesNotBringItBack(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        let note = Note(title: "n")
        a.context.insert(note)
        note.tags = [Tag(name: "naïve")]
        try a.context.save()
        try await a.sync()
        try await b.sync()
        a.context.delete(note)
        try a.context.save()
        try await a.sync()
        let context = ModelContext(b.container)
        context.delete(try context.fetch(FetchDescriptor<Tag>())[0])
        let again = Tag(name: "naïve")
        context.insert(again)
        try context.fetch(FetchDescriptor<Note>())[0].tags.append(again)
        try context.save()
        try await b.sync()
        try await a.sync()
        try await b.sync()
        for container in [a.container, b.container, world.server.container] {
            #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).isEmpty)
        }
    }

    /// Found by `modelkit-sync-chaos` seed 1573108945484246782: a pull that brought a new tag
    /// under the name the device had just given, offline, to a tag the same page held, folded
    /// the new tag into that one (a unique value's insert is an upsert): one row under two
    /// identifiers, which lost the new tag and its note's link on the device for good.
    @Test(arguments: ServerKind.available)
    func aNewRowTakingANameALocalEditGaveARowOfThePageStaysARowOfItsOwn(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device(through: transport)
        let b = try world.device()
        try await a.share([Tag(name: "urgent")], with: b)
        // B renames the tag, and gives a note a new tag named "home".
        try b.context.fetch(FetchDescriptor<Tag>())[0].name = "ops"
        let note = Note(title: "n")
        b.context.insert(note)
        note.tags = [Tag(name: "home")]
        try b.context.save()
        try await b.sync()
        // A renames the tag "home" after its push and before its pull: the page holds the tag.
        let renamed = Mutex(false)
        let container = a.container
        transport.beforePull.withLock {
            $0 = {
                guard !renamed.withLock({ done in defer { done = true }; return done }) else { return }
                let context = ModelContext(container)
                try context.fetch(FetchDescriptor<Tag>())[0].name = "home"
                try context.save()
            }
        }
        let report = try await a.sync()
        #expect(report.rejections.map(\.code) == [.uniqueConflict])
        #expect(try await a.sync().rejected == 0)
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            #expect(Set(try context.fetch(FetchDescriptor<Tag>()).map(\.name)) == ["ops", "home"])
            #expect(try context.fetch(FetchDescriptor<Note>()).map { $0.tags.map(\.name) } == [["home"]])
        }
    }

    /// Found by `modelkit-sync-chaos` seed 1573108945484246782: a push's answer gave a tag back
    /// the name a local rename, made after the push left, had given another tag. The answered
    /// tag took a stand-in until that rename was refused, and kept it for good: the server had
    /// no newer change of it to send.
    @Test(arguments: ServerKind.available)
    func aNameAnAnswerCannotGiveBackWhileALocalRenameHoldsItComesBackOnceTheRenameIsRefused(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device(through: transport)
        let b = try world.device()
        try await a.share([Tag(name: "urgent"), Tag(name: "ops")], with: b)
        b.context.insert(Tag(name: "work"))
        try b.context.save()
        try await b.sync()
        func rename(_ name: String, to new: String) throws {
            let context = ModelContext(a.container)
            try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == name }))[0].name = new
            try context.save()
        }
        // A, not having heard of B's "work", renames a tag so: the server refuses it, and its
        // answer is lost.
        try rename("urgent", to: "work")
        transport.lostPushAnswers.withLock { $0 = 1 }
        await #expect(throws: (any Error).self) { try await a.sync() }
        // Then "urgent", free here, goes to another tag; the push goes again as it was.
        try rename("ops", to: "urgent")
        let report = try await a.sync()
        #expect(report.rejections.map(\.code) == [.uniqueConflict, .uniqueConflict])
        #expect(try await a.sync().rejected == 0)
        for container in [a.container, world.server.container] {
            #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Tag>()).map(\.name)) == ["urgent", "ops", "work"])
        }
    }

    /// Found by `modelkit-sync-chaos` seed 14018390676771498546: a push's answer merged two of
    /// the pushed rows into one row the device did not have; both were renamed to it, which the
    /// sync table's unique key refused, and every later sync of the device failed.
    @Test func twoPushedRowsMergedIntoOneRowTheDeviceLacksBecomeThatOneRow() async throws {
        let world = try SyncWorld()
        let transport = MergingTransport(server: world.server)
        let a = try world.device(through: transport)
        try await a.sync()  // the first, full download, from the real server
        transport.merges.withLock { $0 = true }
        a.context.insert(Tag(name: "a"))
        a.context.insert(Tag(name: "b"))
        try a.context.save()
        try await a.sync()
        let names = try a.all(Tag.self).map(\.name)
        #expect(names == ["a"])
        #expect(try await a.sync().pushed == 0)
    }

    /// Found by seed 2410107321749333532: a NaN with its sign bit set came back without it.
    @Test(arguments: ServerKind.available)
    func aNegativeNaNKeepsItsBitsOnTheServerAndOtherDevices(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        let sample = Sample(name: "nan", seed: 1)
        sample.double = -Double.nan
        a.context.insert(sample)
        try a.context.save()
        #expect(try a.all(Sample.self).map(\.double.bitPattern) == [(-Double.nan).bitPattern])
        try await a.sync()
        try await b.sync()
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Sample>()).map(\.double.bitPattern) == [(-Double.nan).bitPattern])
        #expect(try b.all(Sample.self).map(\.double.bitPattern) == [(-Double.nan).bitPattern])
    }
}

/// Once `merges` is set, answers a push as a server would that found every pushed tag to be one
/// row it holds under a new identifier, named "a"; otherwise, and for pulls, the real server.
private final class MergingTransport: SyncTransport {
    let server: SyncServer
    let merges = Mutex(false)

    init(server: SyncServer) { self.server = server }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        guard merges.withLock({ $0 }) else { return try await server.push(request) }
        let target = UUID().uuidString.lowercased()
        let tags = request.changes.filter { $0.entity == "Tag" }
        let row = SyncChange(entity: "Tag", id: target, fields: ["name": SyncField(value: .text("a"), clock: "000000000000002-000000-s")])
        return SyncPushResponse(
            accepted: request.changes.count, conflicts: 0, rows: [row], merged: Dictionary(uniqueKeysWithValues: tags.map { ($0.id, target) }))
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse { try await server.pull(request) }
}

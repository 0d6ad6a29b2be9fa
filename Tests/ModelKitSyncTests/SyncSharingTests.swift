import Foundation
import ModelKit
import ModelKitSync
import Testing

/// Sharing as data: a document shared with several users by share rows, put in several users'
/// binders, and shares revoked, with the scopes of ``shareScopes``.
@Suite struct SyncSharingTests {
    private static func titles(on device: Device) throws -> [String] {
        try device.all(Doc.self, sortBy: [SortDescriptor(\.title)]).map(\.title)
    }

    @Test(arguments: ServerKind.available)
    func aDocumentSharedWithTwoUsersReachesBothAndRevokingOneKeepsTheOther(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: shareTypes, scopes: shareScopes)
        let alice = try world.device(types: shareTypes, user: "alice")
        let bob = try world.device(types: shareTypes, user: "bob")
        let carol = try world.device(types: shareTypes, user: "carol")
        let doc = Doc(owner: "alice", title: "plan")
        alice.context.insert(doc)
        alice.context.insert(Doc(owner: "alice", title: "diary"))
        var shares: [String: DocShare] = [:]
        for user in ["bob", "carol"] {
            let share = DocShare(userID: user)
            alice.context.insert(share)
            share.doc = doc
            shares[user] = share
        }
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        try await carol.sync()
        #expect(try Self.titles(on: bob) == ["plan"])
        #expect(try Self.titles(on: carol) == ["plan"])
        // Each reads the document's shares that name them, not the other's.
        #expect(try bob.all(DocShare.self).map(\.userID) == ["bob"])

        alice.context.delete(shares["bob"]!)
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        try await carol.sync()
        #expect(try Self.titles(on: bob).isEmpty)
        #expect(try bob.all(DocShare.self).isEmpty)
        #expect(try Self.titles(on: carol) == ["plan"])
        #expect(try carol.all(DocShare.self).map(\.userID) == ["carol"])
        #expect(try Self.titles(on: alice) == ["diary", "plan"])
    }

    /// A team made by `maker` with `members` (the maker among them).
    private static func team(_ name: String, members: [String], on maker: Device) throws -> Team {
        let team = Team(name: name)
        maker.context.insert(team)
        for user in members {
            let member = TeamMember(userID: user)
            maker.context.insert(member)
            member.team = team
        }
        try maker.context.save()
        return team
    }

    @Test(arguments: ServerKind.available)
    func aDocumentInSeveralSharesStaysWhileOneWayToReadItRemains(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: shareTypes, scopes: shareScopes)
        let alice = try world.device(types: shareTypes, user: "alice")
        let bob = try world.device(types: shareTypes, user: "bob")
        let carol = try world.device(types: shareTypes, user: "carol")
        let design = try Self.team("design", members: ["alice", "bob"], on: alice)
        let sales = try Self.team("sales", members: ["alice", "carol"], on: alice)
        // One document in both teams, and shared with bob on its own too.
        let doc = Doc(owner: "alice", title: "roadmap")
        alice.context.insert(doc)
        doc.teams = [design, sales]
        let share = DocShare(userID: "bob")
        alice.context.insert(share)
        share.doc = doc
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        try await carol.sync()
        #expect(try Self.titles(on: bob) == ["roadmap"])
        #expect(try Self.titles(on: carol) == ["roadmap"])
        #expect(try carol.all(Team.self).map(\.name) == ["sales"])
        #expect(try carol.all(Doc.self).first?.teams.map(\.name) == ["sales"])

        // Bob leaves the design team: the share still lets him read the document.
        for member in design.members where member.userID == "bob" { alice.context.delete(member) }
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        #expect(try bob.all(Team.self).isEmpty)
        #expect(try Self.titles(on: bob) == ["roadmap"])
        #expect(try bob.all(Doc.self).first?.teams.isEmpty == true)
        // The share goes too: now nothing lets him read it.
        alice.context.delete(share)
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        #expect(try Self.titles(on: bob).isEmpty)

        // Alice takes it out of the sales team: carol loses it, and keeps the team.
        doc.teams = [design]
        try alice.context.save()
        try await alice.sync()
        try await carol.sync()
        #expect(try Self.titles(on: carol).isEmpty)
        #expect(try carol.all(Team.self).map(\.name) == ["sales"])
        #expect(try Self.titles(on: alice) == ["roadmap"])
    }

    /// Alice shares `doc`, hers, with `bob`'s user; both sync.
    private static func share(_ doc: Doc, by alice: Device, with bob: Device) async throws {
        alice.context.insert(doc)
        let share = DocShare(userID: "bob")
        alice.context.insert(share)
        share.doc = doc
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
    }

    @Test(arguments: ServerKind.available)
    func aTeamMemberCannotFileADocumentHeMayNotWrite(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: shareTypes, scopes: shareScopes)
        let alice = try world.device(types: shareTypes, user: "alice")
        let bob = try world.device(types: shareTypes, user: "bob")
        _ = try Self.team("design", members: ["alice", "bob"], on: alice)
        try await Self.share(Doc(owner: "alice", title: "plan"), by: alice, with: bob)
        // Bob reads the document and writes the team, but filing it changes the document too.
        let bobsDoc = try #require(try bob.context.fetch(FetchDescriptor<Doc>()).first)
        bobsDoc.teams = try bob.context.fetch(FetchDescriptor<Team>())
        try bob.context.save()
        let report = try await bob.sync()
        #expect(report.rejected == 1)
        #expect(try bob.all(Doc.self).first?.teams.isEmpty == true)
        try await alice.sync()
        #expect(try alice.all(Doc.self).first?.teams.isEmpty == true)
    }

    @Test(arguments: ServerKind.available)
    func aReaderWhoIsNotTheOwnerCannotEditOrDeleteTheDocument(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: shareTypes, scopes: shareScopes)
        let alice = try world.device(types: shareTypes, user: "alice")
        let bob = try world.device(types: shareTypes, user: "bob")
        try await Self.share(Doc(owner: "alice", title: "plan"), by: alice, with: bob)
        let bobsDoc = try #require(try bob.context.fetch(FetchDescriptor<Doc>()).first)
        bobsDoc.title = "bob's now"
        try bob.context.save()
        #expect(try await bob.sync().rejected == 1)
        #expect(try Self.titles(on: bob) == ["plan"])
        let again = try #require(try bob.context.fetch(FetchDescriptor<Doc>()).first)
        bob.context.delete(again)
        try bob.context.save()
        // The delete cascades to bob's share, which he may not delete either: both come back.
        #expect(try await bob.sync().rejected == 2)
        #expect(try bob.all(DocShare.self).map(\.userID) == ["bob"])
        #expect(try Self.titles(on: bob) == ["plan"])
        try await alice.sync()
        #expect(try Self.titles(on: alice) == ["plan"])
    }
}

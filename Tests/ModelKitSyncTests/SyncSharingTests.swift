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

    @Test(arguments: ServerKind.available)
    func aDocumentInTwoUsersBindersStaysWhileOneWayToReadItRemains(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: shareTypes, scopes: shareScopes)
        let alice = try world.device(types: shareTypes, user: "alice")
        let bob = try world.device(types: shareTypes, user: "bob")
        let carol = try world.device(types: shareTypes, user: "carol")
        bob.context.insert(Binder(userID: "bob", name: "bob's"))
        try bob.context.save()
        carol.context.insert(Binder(userID: "carol", name: "carol's"))
        try carol.context.save()
        try await bob.sync()
        try await carol.sync()
        // Binders are their users' own: alice reads neither, so she cannot file her document.
        try await alice.sync()
        #expect(try alice.all(Binder.self).isEmpty)

        // Bob shares a document of his with carol and files it in his binder.
        let doc = Doc(owner: "bob", title: "notes")
        bob.context.insert(doc)
        let share = DocShare(userID: "carol")
        bob.context.insert(share)
        share.doc = doc
        try bob.context.save()
        let binder = try #require(try bob.context.fetch(FetchDescriptor<Binder>()).first)
        binder.docs.append(doc)
        try bob.context.save()
        try await bob.sync()
        try await carol.sync()
        #expect(try Self.titles(on: carol) == ["notes"])
        // Carol files it in her binder too: the document is in two binders.
        let carolsBinder = try #require(try carol.context.fetch(FetchDescriptor<Binder>()).first)
        let carolsDoc = try #require(try carol.context.fetch(FetchDescriptor<Doc>()).first)
        carolsBinder.docs.append(carolsDoc)
        try carol.context.save()
        let filed = try await carol.sync()
        #expect(filed.rejected == 0)
        // Bob revokes carol's share: she still reads the document through her binder.
        let bobsShare = try #require(try bob.context.fetch(FetchDescriptor<DocShare>()).first)
        bob.context.delete(bobsShare)
        try bob.context.save()
        try await bob.sync()
        try await carol.sync()
        #expect(try Self.titles(on: carol) == ["notes"])
        #expect(try carol.all(Binder.self).first?.docs.map(\.title) == ["notes"])
        #expect(try carol.all(DocShare.self).isEmpty)
        // Carol takes it out of her binder: now nothing lets her read it, and it leaves.
        let binderAgain = try #require(try carol.context.fetch(FetchDescriptor<Binder>()).first)
        binderAgain.docs.removeAll()
        try carol.context.save()
        try await carol.sync()
        try await carol.sync()
        #expect(try Self.titles(on: carol).isEmpty)
        #expect(try carol.all(Binder.self).map(\.name) == ["carol's"])
        try await bob.sync()
        #expect(try Self.titles(on: bob) == ["notes"])
    }

    @Test(arguments: ServerKind.available)
    func aReaderWhoIsNotTheOwnerCannotEditOrDeleteTheDocument(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: shareTypes, scopes: shareScopes)
        let alice = try world.device(types: shareTypes, user: "alice")
        let bob = try world.device(types: shareTypes, user: "bob")
        let doc = Doc(owner: "alice", title: "plan")
        alice.context.insert(doc)
        let share = DocShare(userID: "bob")
        alice.context.insert(share)
        share.doc = doc
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
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

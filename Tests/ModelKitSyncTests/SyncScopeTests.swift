import Foundation
import ModelKit
import ModelKitSync
import Testing

/// Scopes the server enforces: what each user's devices receive, rows leaving a device as data
/// changes, and writes checked against the write predicates.
@Suite struct SyncScopeTests {
    /// A world with the member scopes, and a device each for alice and bob.
    private static func world(_ kind: ServerKind) throws -> (SyncWorld, alice: Device, bob: Device) {
        let world = try SyncWorld(kind, types: scopedTypes, scopes: memberScopes)
        return (world, try world.device(types: scopedTypes, user: "alice"), try world.device(types: scopedTypes, user: "bob"))
    }

    /// Alice's project with her as a writing member and two chores.
    private static func aliceProject(on alice: Device) throws -> Project {
        let project = Project(name: "Launch")
        alice.context.insert(project)
        let member = Membership(userID: "alice", canWrite: true)
        alice.context.insert(member)
        member.project = project
        for title in ["plan", "ship"] {
            let chore = Chore(title: title)
            alice.context.insert(chore)
            chore.project = project
        }
        try alice.context.save()
        return project
    }

    /// Alice makes `user` a member of `project` and syncs; then `device` syncs. Returns the membership.
    @discardableResult
    private static func add(
        _ user: String, canWrite: Bool, to project: Project, by alice: Device, then device: Device
    ) async throws -> Membership {
        let membership = Membership(userID: user, canWrite: canWrite)
        alice.context.insert(membership)
        membership.project = project
        try alice.context.save()
        try await alice.sync()
        try await device.sync()
        return membership
    }

    @Test(arguments: ServerKind.available)
    func eachUserReceivesOnlyTheRowsTheirReadPredicatesAdmit(_ kind: ServerKind) async throws {
        let (world, alice, bob) = try Self.world(kind)
        _ = world
        alice.context.insert(Memo(owner: "alice", text: "alice's"))
        bob.context.insert(Memo(owner: "bob", text: "bob's"))
        try alice.context.save()
        try bob.context.save()
        _ = try Self.aliceProject(on: alice)
        try await alice.sync()
        try await bob.sync()
        try await alice.sync()
        #expect(try alice.all(Memo.self).map(\.text) == ["alice's"])
        #expect(try bob.all(Memo.self).map(\.text) == ["bob's"])
        #expect(try bob.all(Project.self).isEmpty)
        #expect(try bob.all(Chore.self).isEmpty)
        #expect(try alice.all(Chore.self, sortBy: [SortDescriptor(\.title)]).map(\.title) == ["plan", "ship"])
    }

    @Test(arguments: ServerKind.available)
    func addingAMembershipBringsTheProjectItsMembersAndChores(_ kind: ServerKind) async throws {
        let (world, alice, bob) = try Self.world(kind)
        _ = world
        let project = try Self.aliceProject(on: alice)
        try await alice.sync()
        try await bob.sync()
        #expect(try bob.all(Project.self).isEmpty)
        let membership = Membership(userID: "bob", canWrite: false)
        alice.context.insert(membership)
        membership.project = project
        try alice.context.save()
        try await alice.sync()
        let report = try await bob.sync()
        #expect(report.pulled == 5)
        let projects = try bob.all(Project.self)
        #expect(projects.map(\.name) == ["Launch"])
        #expect(Set(projects[0].members.map(\.userID)) == ["alice", "bob"])
        #expect(Set(projects[0].chores.map(\.title)) == ["plan", "ship"])
    }

    @Test(arguments: ServerKind.available)
    func removingAMembershipTakesTheProjectAwayWithoutDeletingIt(_ kind: ServerKind) async throws {
        let (world, alice, bob) = try Self.world(kind)
        let project = try Self.aliceProject(on: alice)
        let membership = try await Self.add("bob", canWrite: true, to: project, by: alice, then: bob)
        #expect(try bob.all(Chore.self).count == 2)
        alice.context.delete(membership)
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        #expect(try bob.all(Project.self).isEmpty)
        #expect(try bob.all(Membership.self).isEmpty)
        #expect(try bob.all(Chore.self).isEmpty)
        // Nothing went back as a delete: the server and alice keep everything.
        try await bob.sync()
        try await alice.sync()
        #expect(try alice.all(Chore.self).count == 2)
        #expect(try alice.all(Membership.self).map(\.userID) == ["alice"])
        let server = ModelContext(world.server.container)
        #expect(try server.fetchCount(FetchDescriptor<Chore>()) == 2)
        #expect(try server.fetchCount(FetchDescriptor<Project>()) == 1)
        // Readding bob brings it all back as new rows.
        try await Self.add("bob", canWrite: false, to: project, by: alice, then: bob)
        #expect(try bob.all(Chore.self).count == 2)
        #expect(try bob.all(Project.self).first?.members.count == 2)
    }

    @Test(arguments: ServerKind.available)
    func aChangeTheWritePredicateRefusesIsRejectedAndUndoneOnTheDevice(_ kind: ServerKind) async throws {
        let (world, alice, bob) = try Self.world(kind)
        let project = try Self.aliceProject(on: alice)
        try await Self.add("bob", canWrite: false, to: project, by: alice, then: bob)
        // Bob reads the project but may not write it: his edit of a chore and his new chore go back.
        let chore = try #require(try bob.context.fetch(FetchDescriptor<Chore>(predicate: #Predicate { $0.title == "plan" })).first)
        chore.title = "bob was here"
        let extra = Chore(title: "extra")
        bob.context.insert(extra)
        extra.project = chore.project
        // A memo he writes for alice: he may not write it, nor read it afterwards.
        bob.context.insert(Memo(owner: "alice", text: "forged"))
        // His own memo goes through in the same push.
        bob.context.insert(Memo(owner: "bob", text: "mine"))
        try bob.context.save()
        let report = try await bob.sync()
        #expect(report.rejected == 3)
        #expect(report.rejections.allSatisfy { $0.code == .outOfScope })
        #expect(report.pushed == 1)
        #expect(Set(try bob.all(Chore.self).map(\.title)) == ["plan", "ship"])
        #expect(try bob.all(Memo.self).map(\.text) == ["mine"])
        // Nothing of it reached the server, and nothing is pushed again.
        try await alice.sync()
        #expect(Set(try alice.all(Chore.self).map(\.title)) == ["plan", "ship"])
        #expect(try alice.all(Memo.self).isEmpty)
        let server = ModelContext(world.server.container)
        #expect(try server.fetch(FetchDescriptor<Memo>()).map(\.text) == ["mine"])
        let again = try await bob.sync()
        #expect(again.rejected == 0 && again.pushed == 0)
    }

    @Test(arguments: ServerKind.available)
    func aProjectAndTheMembershipThatLetsItsMakerWriteItPassInOnePush(_ kind: ServerKind) async throws {
        let (world, alice, bob) = try Self.world(kind)
        _ = world
        _ = try Self.aliceProject(on: bob)  // made by bob, with alice's name on the membership
        let report = try await bob.sync()
        // The membership names alice, so bob may not write the project: all four are refused.
        #expect(report.rejected == 4)
        #expect(try bob.all(Project.self).isEmpty)
        let project = Project(name: "Mine")
        bob.context.insert(project)
        let member = Membership(userID: "bob", canWrite: true)
        bob.context.insert(member)
        member.project = project
        try bob.context.save()
        let second = try await bob.sync()
        #expect(second.rejected == 0)
        #expect(second.pushed == 2)
        try await alice.sync()
        #expect(try alice.all(Project.self).isEmpty)
    }

    @Test(arguments: ServerKind.available)
    func aRowAnotherUserDeletesBetweenThePushThatMadeItAndTheNextPullGoesFromTheDevice(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: scopedTypes, scopes: memberScopes)
        let alice = try world.device(types: scopedTypes, user: "alice")
        let transport = FaultyTransport(server: world.server)
        let bob = try Device(
            url: world.directory.appendingPathComponent("bob.store"), types: scopedTypes, transport: transport, credentials: ["user": "bob"],
            keeping: world)
        let project = try Self.aliceProject(on: alice)
        try await Self.add("bob", canWrite: true, to: project, by: alice, then: bob)
        // Bob makes a chore; between his push and his pull, alice syncs it and deletes it.
        let chore = Chore(title: "bob's")
        bob.context.insert(chore)
        chore.project = try bob.context.fetch(FetchDescriptor<Project>()).first
        try bob.context.save()
        let (aliceContainer, aliceClient) = (alice.container, alice.client)
        transport.beforePull.withLock {
            $0 = {
                try await aliceClient.sync()
                let context = ModelContext(aliceContainer)
                for chore in try context.fetch(FetchDescriptor<Chore>(predicate: #Predicate { $0.title == "bob's" })) { context.delete(chore) }
                try context.save()
                try await aliceClient.sync()
            }
        }
        try await bob.sync()
        transport.beforePull.withLock { $0 = nil }
        try await bob.sync()
        #expect(Set(try bob.all(Chore.self).map(\.title)) == ["plan", "ship"])
        #expect(Set(try alice.all(Chore.self).map(\.title)) == ["plan", "ship"])
    }

    @Test(arguments: ServerKind.available)
    func aServerThatGainsScopesSendsItsDevicesOnlyTheirUsersRowsAndLosingThemSendsEverything(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, types: scopedTypes)
        let alice = try world.device(types: scopedTypes)
        alice.context.insert(Memo(owner: "alice", text: "alice's"))
        alice.context.insert(Memo(owner: "bob", text: "bob's"))
        try alice.context.save()
        try await alice.sync()
        #expect(try alice.all(Memo.self).count == 2)
        // The server starts again with scopes: alice's cursor starts a download of her rows.
        let scoped = try SyncServer(container: world.server.container, scopes: memberScopes) { _ in "alice" }
        let client = try SyncClient(container: alice.container, transport: scoped, credentials: ["user": "alice"])
        try await client.sync()
        #expect(try alice.all(Memo.self).map(\.text) == ["alice's"])
        // And without them again: everything comes back.
        try await alice.sync()
        #expect(Set(try alice.all(Memo.self).map(\.text)) == ["alice's", "bob's"])
        #expect(try ModelContext(world.server.container).fetchCount(FetchDescriptor<Memo>()) == 2)
    }
}

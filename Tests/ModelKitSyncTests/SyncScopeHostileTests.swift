import Foundation
import ModelKit
@testable import ModelKitSync
import Synchronization
import Testing

/// A transport around the server that keeps every answer as JSON, can lose a pull's answer after
/// the server made it, and can make pages small.
final class ScopeTransport: SyncTransport {
    let server: SyncServer
    /// Every pull and push answer, as the device would have received it (encoded).
    let answers = Mutex<[String]>([])
    /// How many pull answers to lose after the server made them.
    let lostPullAnswers = Mutex(0)
    /// The most rows a pull asks for, when set: small pages exercise rows entering over several.
    let pageLimit = Mutex<Int?>(nil)

    init(server: SyncServer) { self.server = server }

    struct Lost: Error {}

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let response = try await server.push(request)
        record(response)
        return response
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        var request = request
        if let limit = pageLimit.withLock({ $0 }) { request.limit = limit }
        let response = try await server.pull(request)
        if lostPullAnswers.withLock({ count in defer { count = max(0, count - 1) }; return count > 0 }) { throw Lost() }
        record(response)
        return response
    }

    private func record(_ answer: some Encodable) {
        let json = String(decoding: try! SyncJSON.encoder.encode(answer), as: UTF8.self)
        answers.withLock { $0.append(json) }
    }
}

/// A class hierarchy under a scoped class: a sheet is a document, scoped by the document's owner.
@Model class Document {
    var owner: String
    var text: String
    init(owner: String, text: String) {
        self.owner = owner
        self.text = text
    }
}

@Model final class Sheet: Document {
    var cells: Int
    init(owner: String, text: String, cells: Int) {
        self.cells = cells
        super.init(owner: owner, text: text)
    }
}

/// Scopes that hide some rows a readable row points at: a chore titled "private" is read by
/// no one (members who write may still write it), so a project's chores are partly hidden.
let hidingScopes: SyncScopes = {
    var scopes = memberScopes
    scopes.set(
        Chore.self,
        read: { user in #Predicate<Chore> { c in c.title != "private" && c.project?.members.contains { $0.userID == user } == true } },
        write: { user in #Predicate<Chore> { c in c.project?.members.contains { $0.userID == user && $0.canWrite } == true } })
    scopes.set(Document.self) { user in #Predicate<Document> { $0.owner == user } }
    return scopes
}()

let hostileTypes: [any PersistentModel.Type] = scopedTypes + [Document.self, Sheet.self]

/// What a hostile or unlucky device cannot get from a server with scopes: other users' rows or
/// their identifiers, writes outside its scopes, or a view that drifts from what it holds.
@Suite struct SyncScopeHostileTests {
    let clock = "001700000000000-000000-d"

    /// A world with the hiding scopes; alice and bob each on a device through a recording transport.
    static func world(_ kind: ServerKind) throws -> (SyncWorld, alice: Device, bob: Device, aliceT: ScopeTransport, bobT: ScopeTransport) {
        let world = try SyncWorld(kind, types: hostileTypes, scopes: hidingScopes)
        let aliceT = ScopeTransport(server: world.server)
        let bobT = ScopeTransport(server: world.server)
        let alice = try world.device(types: hostileTypes, user: "alice", through: aliceT)
        let bob = try world.device(types: hostileTypes, user: "bob", through: bobT)
        return (world, alice, bob, aliceT, bobT)
    }

    /// A project on `device` with `members` (user, canWrite) and chores titled `chores`.
    @discardableResult
    static func project(_ name: String, members: [(String, Bool)], chores: [String], on device: Device) throws -> Project {
        let project = Project(name: name)
        device.context.insert(project)
        for (user, canWrite) in members {
            let member = Membership(userID: user, canWrite: canWrite)
            device.context.insert(member)
            member.project = project
        }
        for title in chores {
            let chore = Chore(title: title)
            device.context.insert(chore)
            chore.project = project
        }
        try device.context.save()
        return project
    }

    /// The global identifier the server gave `model`'s row.
    static func gid(of model: some PersistentModel, on server: SyncServer) throws -> String {
        let rows = try ModelContext(server.container).replicaRead {
            try $0.rows("SELECT gid FROM \(SyncTables.ids) WHERE entity = ? AND row_key = ?", [.text(model.persistentModelID.entityName), .integer(model._rowKey!)])
        }
        guard case .text(let gid)? = rows.first?.first else { throw SyncError(.serverFailed, "no identifier for \(model)") }
        return gid
    }

    /// The server's rows of `type` matching `predicate`.
    static func server<T: PersistentModel>(_ world: SyncWorld, _ type: T.Type, _ predicate: Predicate<T>? = nil) throws -> [T] {
        try ModelContext(world.server.container).fetch(FetchDescriptor<T>(predicate: predicate))
    }

    @Test(arguments: ServerKind.available)
    func noAnswerToBobEverNamesAlicesPrivateRows(_ kind: ServerKind) async throws {
        let (world, alice, bob, _, bobT) = try Self.world(kind)
        alice.context.insert(Memo(owner: "alice", text: "alice's diary"))
        alice.context.insert(Sheet(owner: "alice", text: "alice's sheet", cells: 3))
        try Self.project("Secret", members: [("alice", true)], chores: ["hidden"], on: alice)
        let shared = try Self.project("Shared", members: [("alice", true), ("bob", true)], chores: ["open", "private"], on: alice)
        bob.context.insert(Memo(owner: "bob", text: "bob's"))
        try bob.context.save()
        try await alice.sync()
        try await bob.sync()
        // Bob, who writes the shared project, renames it and adds a chore: the answers to his
        // pushes describe the project with its chores.
        let bobsShared = try #require(try bob.context.fetch(FetchDescriptor<Project>()).first)
        #expect(bobsShared.name == "Shared")
        #expect(bobsShared.chores.map(\.title) == ["open"])
        bobsShared.name = "Shared by bob"
        let chore = Chore(title: "bob's chore")
        bob.context.insert(chore)
        chore.project = bobsShared
        try bob.context.save()
        let renamed = try await bob.sync()
        #expect(renamed.pushed == 2 && renamed.rejected == 0)
        // Alice moves the shared chore into her secret project and back, edits her rows.
        try await alice.sync()
        let secret = try #require(try alice.context.fetch(FetchDescriptor<Project>(predicate: #Predicate { $0.name == "Secret" })).first)
        let open = try #require(try alice.context.fetch(FetchDescriptor<Chore>(predicate: #Predicate { $0.title == "open" })).first)
        open.project = secret
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        #expect(try bob.all(Chore.self).map(\.title) == ["bob's chore"])
        let sharedByBob = try #require(try alice.context.fetch(FetchDescriptor<Project>(predicate: #Predicate { $0.name == "Shared by bob" })).first)
        open.project = sharedByBob
        try alice.context.save()
        try await alice.sync()
        try await bob.sync()
        #expect(Set(try bob.all(Chore.self).map(\.title)) == ["bob's chore", "open"])

        // The rows bob never read: alice's memo and sheet, the secret project, its membership
        // and chore, and the private chore of the shared project.
        var secrets: [String: String] = [:]
        for memo in try Self.server(world, Memo.self, #Predicate { $0.owner == "alice" }) { secrets[try Self.gid(of: memo, on: world.server)] = "memo" }
        for sheet in try Self.server(world, Sheet.self) { secrets[try Self.gid(of: sheet, on: world.server)] = "sheet" }
        for project in try Self.server(world, Project.self, #Predicate { $0.name == "Secret" }) {
            secrets[try Self.gid(of: project, on: world.server)] = "project"
            for member in project.members { secrets[try Self.gid(of: member, on: world.server)] = "membership" }
        }
        for chore in try Self.server(world, Chore.self, #Predicate { $0.title == "hidden" || $0.title == "private" }) {
            secrets[try Self.gid(of: chore, on: world.server)] = "chore \(chore.title)"
        }
        #expect(secrets.count == 6)
        let answers = bobT.answers.withLock { $0 }
        #expect(answers.count > 4)
        for (gid, what) in secrets {
            #expect(!answers.contains { $0.contains(gid) }, "an answer to bob names alice's \(what) \(gid)")
        }
        for text in ["alice's diary", "alice's sheet", "Secret", "hidden", "\"private\""] {
            #expect(!answers.contains { $0.contains(text) }, "an answer to bob holds \(text)")
        }
        // The private chore is still the shared project's, though bob's device never knew of it.
        let serverShared = try #require(try Self.server(world, Project.self, #Predicate { $0.name == "Shared by bob" }).first)
        #expect(Set(serverShared.chores.map(\.title)) == ["open", "private", "bob's chore"])
        _ = shared
    }

    @Test(arguments: ServerKind.available)
    func aHandBuiltPushNamingAlicesRowsIsRefusedAndChangesNothing(_ kind: ServerKind) async throws {
        let (world, alice, bob, _, _) = try Self.world(kind)
        alice.context.insert(Memo(owner: "alice", text: "alice's diary"))
        try Self.project("Secret", members: [("alice", true)], chores: ["hidden"], on: alice)
        try await alice.sync()
        try await bob.sync()
        let memo = try #require(try Self.server(world, Memo.self).first)
        let memoID = try Self.gid(of: memo, on: world.server)
        let project = try #require(try Self.server(world, Project.self).first)
        let projectID = try Self.gid(of: project, on: world.server)
        let choreID = try Self.gid(of: try #require(project.chores.first), on: world.server)
        let envelope = SyncEnvelope(schema: world.server.schema.fingerprint, device: "bobs-hand", credentials: ["user": "bob"])
        let cases: [(String, [SyncChange])] = [
            ("an update of alice's memo", [SyncChange(entity: "Memo", id: memoID, fields: ["text": SyncField(value: .text("bob was here"), clock: clock)])]),
            ("a memo of bob's own that takes alice's memo's identifier", [
                SyncChange(entity: "Memo", id: memoID, fields: ["text": SyncField(value: .text("mine now"), clock: clock), "owner": SyncField(value: .text("bob"), clock: clock)])
            ]),
            ("a delete of alice's memo", [SyncChange(entity: "Memo", id: memoID, deleted: true)]),
            ("a chore in alice's secret project", [
                SyncChange(entity: "Chore", id: "bobs-chore", fields: [
                    "title": SyncField(value: .text("planted"), clock: clock), "done": SyncField(value: .integer(0), clock: clock),
                    "project": SyncField(value: .reference(projectID), clock: clock),
                ])
            ]),
            ("a membership for bob in alice's secret project", [
                SyncChange(entity: "Membership", id: "bobs-membership", fields: [
                    "userID": SyncField(value: .text("bob"), clock: clock), "canWrite": SyncField(value: .integer(1), clock: clock),
                    "project": SyncField(value: .reference(projectID), clock: clock),
                ])
            ]),
            ("a delete of alice's chore", [SyncChange(entity: "Chore", id: choreID, deleted: true)]),
            ("a rename of alice's project", [SyncChange(entity: "Project", id: projectID, fields: ["name": SyncField(value: .text("Bob's"), clock: clock)])]),
        ]
        for (number, (what, changes)) in cases.enumerated() {
            let answer = try await world.server.push(SyncPushRequest(envelope: envelope, id: "hostile-\(number)", changes: changes))
            #expect(answer.rejections.map(\.code) == changes.map { _ in .outOfScope }, "\(what)")
            #expect(answer.accepted == 0, "\(what)")
            // The answer tells bob nothing of the row: it left (or never entered) his scope.
            for row in answer.rows {
                #expect(row.fields.isEmpty, "\(what): the answer describes \(row.id)")
            }
            let json = String(decoding: try SyncJSON.encoder.encode(answer.rows), as: UTF8.self)
            #expect(!json.contains("alice's diary") && !json.contains("Secret") && !json.contains("hidden"), "\(what)")
        }
        #expect(try Self.server(world, Memo.self).map(\.text) == ["alice's diary"])
        #expect(try Self.server(world, Memo.self).map(\.owner) == ["alice"])
        #expect(try Self.server(world, Project.self).map(\.name) == ["Secret"])
        #expect(try Self.server(world, Membership.self).map(\.userID) == ["alice"])
        #expect(try Self.server(world, Chore.self).map(\.title) == ["hidden"])
        // Alice's next sync sees nothing changed.
        let report = try await alice.sync()
        #expect(report.pulled == 0)
        #expect(try alice.all(Memo.self).map(\.text) == ["alice's diary"])
    }

    @Test(arguments: ServerKind.available)
    func aMemberWhoOnlyReadsCannotMakeHimselfAWriter(_ kind: ServerKind) async throws {
        let (world, alice, bob, _, _) = try Self.world(kind)
        try Self.project("Shared", members: [("alice", true), ("bob", false)], chores: ["open"], on: alice)
        try await alice.sync()
        try await bob.sync()
        let project = try #require(try bob.all(Project.self).first)
        // A second membership naming himself a writer: as the push leaves it, it passes the
        // membership's write predicate (it makes him one), but it changes a project he may not write.
        let escalation = Membership(userID: "bob", canWrite: true)
        bob.context.insert(escalation)
        let bobsProject = try #require(try bob.context.fetch(FetchDescriptor<Project>()).first)
        escalation.project = bobsProject
        try bob.context.save()
        let report = try await bob.sync()
        #expect(report.rejected == 1)
        #expect(report.rejections.map(\.code) == [.outOfScope])
        #expect(try Self.server(world, Membership.self, #Predicate { $0.userID == "bob" }).map(\.canWrite) == [false])
        // Nor can he then write the project's chores.
        let chore = try #require(try bob.context.fetch(FetchDescriptor<Chore>()).first)
        chore.title = "bob's now"
        try bob.context.save()
        let second = try await bob.sync()
        #expect(second.rejected == 1)
        #expect(try Self.server(world, Chore.self).map(\.title) == ["open"])
        #expect(try bob.all(Chore.self).map(\.title) == ["open"])
        #expect(try bob.all(Membership.self).count == 2)
        _ = project
    }

    @Test(arguments: ServerKind.available)
    func aLostPullAnswerIsSentAgainAndRowsStillEnterAndLeave(_ kind: ServerKind) async throws {
        let (world, alice, bob, _, bobT) = try Self.world(kind)
        let first = try Self.project("First", members: [("alice", true), ("bob", true)], chores: ["a1", "a2"], on: alice)
        let second = try Self.project("Second", members: [("alice", true)], chores: ["b1", "b2", "b3"], on: alice)
        try await alice.sync()
        try await bob.sync()
        #expect(try bob.all(Project.self).map(\.name) == ["First"])
        bobT.pageLimit.withLock { $0 = 2 }
        // Bob moves from the first project to the second: rows leave and enter, over pages.
        for member in first.members where member.userID == "bob" { alice.context.delete(member) }
        let member = Membership(userID: "bob", canWrite: false)
        alice.context.insert(member)
        member.project = second
        try alice.context.save()
        try await alice.sync()
        for lost in 1...3 {
            bobT.lostPullAnswers.withLock { $0 = 1 }
            await #expect(throws: (any Error).self) { try await bob.sync() }
            // A page after the lost one: the view was rewound to what bob holds.
            if lost == 2 { _ = try? await bob.sync() }
        }
        try await bob.sync()
        try await bob.sync()
        #expect(try bob.all(Project.self).map(\.name) == ["Second"])
        #expect(Set(try bob.all(Chore.self).map(\.title)) == ["b1", "b2", "b3"])
        #expect(Set(try bob.all(Membership.self).map(\.userID)) == ["alice", "bob"])
        // And back: every row of the second project leaves, the first's come back.
        let back = Membership(userID: "bob", canWrite: true)
        alice.context.insert(back)
        back.project = first
        alice.context.delete(member)
        try alice.context.save()
        try await alice.sync()
        bobT.lostPullAnswers.withLock { $0 = 2 }
        await #expect(throws: (any Error).self) { try await bob.sync() }
        await #expect(throws: (any Error).self) { try await bob.sync() }
        try await bob.sync()
        try await bob.sync()
        #expect(try bob.all(Project.self).map(\.name) == ["First"])
        #expect(Set(try bob.all(Chore.self).map(\.title)) == ["a1", "a2"])
        #expect(Set(try bob.all(Membership.self).map(\.userID)) == ["alice", "bob"])
        // Nothing left the server.
        #expect(try Self.server(world, Chore.self).count == 5)
    }

    @Test(arguments: ServerKind.available)
    func aDeviceThatChangesUserEndsWithOnlyTheNewUsersRows(_ kind: ServerKind) async throws {
        let (world, alice, bob, _, _) = try Self.world(kind)
        alice.context.insert(Memo(owner: "alice", text: "alice's"))
        try Self.project("Alice's", members: [("alice", true)], chores: ["a"], on: alice)
        bob.context.insert(Memo(owner: "bob", text: "bob's"))
        try bob.context.save()
        try Self.project("Bob's", members: [("bob", true)], chores: ["b"], on: bob)
        try await bob.sync()
        try await alice.sync()
        #expect(try alice.all(Memo.self).map(\.text) == ["alice's"])
        // The same store, signed in as bob.
        let transport = ScopeTransport(server: world.server)
        let switched = try SyncClient(container: alice.container, transport: transport, credentials: ["user": "bob"])
        try await switched.sync()
        try await switched.sync()
        let context = ModelContext(alice.container)
        #expect(try context.fetch(FetchDescriptor<Memo>()).map(\.text) == ["bob's"])
        #expect(try context.fetch(FetchDescriptor<Project>()).map(\.name) == ["Bob's"])
        #expect(try context.fetch(FetchDescriptor<Chore>()).map(\.title) == ["b"])
        #expect(try context.fetch(FetchDescriptor<Membership>()).map(\.userID) == ["bob"])
        // Nothing of alice's went from the server, and nothing was pushed as bob.
        #expect(Set(try Self.server(world, Memo.self).map(\.text)) == ["alice's", "bob's"])
        #expect(try Self.server(world, Chore.self).count == 2)
        // Bob's edits on it go through.
        let memo = try #require(try context.fetch(FetchDescriptor<Memo>()).first)
        memo.text = "bob's, edited"
        try context.save()
        let report = try await switched.sync()
        #expect(report.rejected == 0)
        try await bob.sync()
        #expect(try bob.all(Memo.self).map(\.text) == ["bob's, edited"])
    }

    @Test(arguments: ServerKind.available)
    func aSubclassOfAScopedModelIsScopedByItsSuperclasssScope(_ kind: ServerKind) async throws {
        let (world, alice, bob, _, _) = try Self.world(kind)
        alice.context.insert(Sheet(owner: "alice", text: "alice's sheet", cells: 1))
        alice.context.insert(Document(owner: "alice", text: "alice's doc"))
        bob.context.insert(Sheet(owner: "bob", text: "bob's sheet", cells: 2))
        try alice.context.save()
        try bob.context.save()
        try await alice.sync()
        try await bob.sync()
        try await alice.sync()
        #expect(try bob.all(Document.self).map(\.text) == ["bob's sheet"])
        #expect(try bob.all(Sheet.self).map(\.cells) == [2])
        #expect(Set(try alice.all(Document.self).map(\.text)) == ["alice's sheet", "alice's doc"])
        // A sheet bob makes for alice, and his own handed to alice, are refused.
        bob.context.insert(Sheet(owner: "alice", text: "forged", cells: 9))
        try #require(try bob.context.fetch(FetchDescriptor<Sheet>()).first).owner = "alice"
        try bob.context.save()
        let report = try await bob.sync()
        #expect(report.rejected == 2)
        #expect(try bob.all(Sheet.self).map(\.owner) == ["bob"])
        #expect(Set(try Self.server(world, Sheet.self).map(\.text)) == ["alice's sheet", "bob's sheet"])
        // Alice may not give her sheet away: as the push leaves it, she would not write it.
        try #require(try alice.context.fetch(FetchDescriptor<Sheet>()).first).owner = "bob"
        try alice.context.save()
        #expect(try await alice.sync().rejected == 1)
        try await bob.sync()
        #expect(try alice.all(Sheet.self).map(\.owner) == ["alice"])
        #expect(try bob.all(Sheet.self).map(\.text) == ["bob's sheet"])
        #expect(try Self.server(world, Document.self).count == 3)
    }
}

extension SyncScopeHostileTests {
    @Test(arguments: ServerKind.available)
    func aWriterWhoGivesUpWritingInAPushCannotWriteInTheSamePush(_ kind: ServerKind) async throws {
        let (world, alice, _, _, _) = try Self.world(kind)
        let project = try Self.project("Mine", members: [("alice", true)], chores: [], on: alice)
        try await alice.sync()
        let chore = Chore(title: "late")
        alice.context.insert(chore)
        chore.project = project
        try #require(project.members.first).canWrite = false
        try alice.context.save()
        let report = try await alice.sync()
        // As the push leaves them, alice writes neither the chore nor her membership.
        #expect(report.rejected == 2)
        #expect(try Self.server(world, Chore.self).isEmpty)
        #expect(try Self.server(world, Membership.self).map(\.canWrite) == [true])
    }

    @Test(arguments: ServerKind.available)
    func aWriterWhoDeletesHisMembershipInAPushCannotWriteInTheSamePush(_ kind: ServerKind) async throws {
        let (world, alice, _, _, _) = try Self.world(kind)
        let project = try Self.project("Mine", members: [("alice", true)], chores: [], on: alice)
        try await alice.sync()
        let chore = Chore(title: "late")
        alice.context.insert(chore)
        chore.project = project
        alice.context.delete(try #require(project.members.first))
        try alice.context.save()
        let report = try await alice.sync()
        // The delete passes (she wrote the membership as stored); as the push leaves it, she no
        // longer writes the project, so the chore is refused.
        #expect(report.rejected == 1)
        #expect(report.rejections.map(\.entity) == ["Chore"])
        #expect(try Self.server(world, Chore.self).isEmpty)
        #expect(try Self.server(world, Membership.self).isEmpty)
    }
}

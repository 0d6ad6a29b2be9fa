import Foundation
import ModelKit
@testable import ModelKitSync
import Synchronization
import Testing

/// The promises under adversity: each case an adversarial run once broke, reduced.
@Suite struct SyncAdversityTests {
    static func summing() -> SyncPolicies {
        var policies = SyncPolicies()
        policies.set(\Counter.value, .custom { c in c.server + c.incoming - (c.base ?? 0) })
        return policies
    }

    /// Saves `edit` of the device's models of `type`, in a context of its own.
    func edit<T: PersistentModel>(_ device: Device, _ type: T.Type, _ edit: ([T], ModelContext) throws -> Void) throws {
        let context = ModelContext(device.container)
        try edit(try context.fetch(FetchDescriptor<T>()), context)
        try context.save()
    }

    func tagNames(_ note: Note) -> Set<String> { Set(note.tags.map(\.name)) }

    @Test(arguments: ServerKind.available)
    func aSummingRuleCountsTwoIncrementsThatPushEqualValues(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, policies: Self.summing())
        let a = try world.device()
        let b = try world.device()
        try await a.share([Counter(name: "c", value: 0)], with: b)
        for device in [a, b] { try edit(device, Counter.self) { counters, _ in counters[0].value += 2 } }
        try await a.sync()
        let report = try await b.sync()
        try await a.sync()
        #expect(report.conflicts == 1)
        for container in [a.container, b.container, world.server.container] {
            #expect(try ModelContext(container).fetch(FetchDescriptor<Counter>()).map(\.value) == [4])
        }
    }

    @Test(arguments: ServerKind.available)
    func anEditMadeWhileAPullRunsKeepsItsBaseSoTheRuleCountsIt(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, policies: Self.summing())
        let transport = FaultyTransport(server: world.server)
        let a = try world.device()
        let b = try world.device(through: transport)
        try await a.share([Counter(name: "c", value: 10)], with: b)
        try edit(a, Counter.self) { counters, _ in counters[0].value += 1 }
        try await a.sync()
        // B adds 2 while its sync pulls A's increment: B keeps 12 and pushes it next time.
        let container = b.container
        transport.beforePull.withLock {
            $0 = {
                let context = ModelContext(container)
                try context.fetch(FetchDescriptor<Counter>())[0].value += 2
                try context.save()
            }
        }
        try await b.sync()
        transport.beforePull.withLock { $0 = nil }
        try await b.sync()
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            #expect(try ModelContext(container).fetch(FetchDescriptor<Counter>()).map(\.value) == [13])
        }
    }

    @Test(arguments: ServerKind.available)
    func anEditMadeBeforeAPullOfALaterEditLosesToIt(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device(through: transport)
        let b = try world.device()
        try await a.share([Note(title: "Draft")], with: b)
        // While A's sync pulls, A edits; then B edits later and syncs before A's pull reads.
        let (aContainer, bClient, bContainer) = (a.container, b.client, b.container)
        transport.beforePull.withLock {
            $0 = {
                let context = ModelContext(aContainer)
                try context.fetch(FetchDescriptor<Note>())[0].title = "older, from A"
                try context.save()
                await wallClockMovesOn()
                let other = ModelContext(bContainer)
                try other.fetch(FetchDescriptor<Note>())[0].title = "newer, from B"
                try other.save()
                try await bClient.sync()
            }
        }
        try await a.sync()
        transport.beforePull.withLock { $0 = nil }
        try await a.sync()
        try await b.sync()
        for device in [a, b] { #expect(try device.all(Note.self).map(\.title) == ["newer, from B"]) }
    }

    @Test(arguments: ServerKind.available)
    func aToManyChangeKeepsItsLiveRowsWhenOneOfThemIsDeleted(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        let note = Note(title: "memo")
        a.context.insert(note)
        note.tags = [Tag(name: "old")]
        try await a.share([Tag(name: "gone"), Tag(name: "live")], with: b)
        try edit(b, Tag.self) { tags, context in context.delete(tags.first { $0.name == "gone" }!) }
        try await b.sync()
        try edit(a, Note.self) { notes, context in
            let tags = try context.fetch(FetchDescriptor<Tag>())
            notes[0].tags = tags.filter { $0.name != "old" }
            let fresh = Note(title: "new memo")
            context.insert(fresh)
            fresh.tags = tags.filter { $0.name != "old" }
        }
        try await a.sync()
        try await b.sync()
        for device in [a, b] {
            let notes = try device.all(Note.self, sortBy: [SortDescriptor(\.title)])
            #expect(notes.map(\.title) == ["memo", "new memo"])
            #expect(notes.map(tagNames) == [["live"], ["live"]])
        }
    }

    @Test(arguments: ServerKind.available)
    func afterAUniqueMergeTheDeviceKeepsTheMergedRowsOtherRows(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Note(title: "shared")], with: b)
        // Both tag the note "work" offline, each with a tag of its own; B also adds "x".
        try edit(b, Note.self) { notes, _ in notes[0].tags = [Tag(name: "work"), Tag(name: "x")] }
        try await b.sync()
        try edit(a, Note.self) { notes, _ in notes[0].tags = [Tag(name: "work")] }
        try await a.sync()
        #expect(try a.all(Note.self).map(tagNames) == [["work", "x"]])
        // A's next edit of the note does not take "x" away.
        try edit(a, Note.self) { notes, _ in notes[0].body = "edited" }
        try await a.sync()
        try await b.sync()
        for container in [a.container, b.container, world.server.container] {
            let notes = try ModelContext(container).fetch(FetchDescriptor<Note>())
            #expect(notes.map(tagNames) == [["work", "x"]] && notes.map(\.body) == ["edited"])
            #expect(try ModelContext(container).fetch(FetchDescriptor<Tag>()).count == 2)
        }
    }

    @Test(arguments: ServerKind.available)
    func renamingARowIntoAnotherRowsUniqueValueIsRefusedAndSyncGoesOn(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Tag(name: "one"), Tag(name: "two")], with: b)
        try edit(a, Tag.self) { tags, _ in tags.first { $0.name == "one" }!.name = "same" }
        try edit(b, Tag.self) { tags, _ in tags.first { $0.name == "two" }!.name = "same" }
        try await a.sync()
        let report = try await b.sync()
        #expect(report.rejected == 1)
        #expect(report.rejections.map(\.code) == [.uniqueConflict])
        #expect(report.rejections.first?.change.fields["name"]?.value == .text("same"))
        // B's rename is undone, and B goes on syncing.
        try edit(b, Tag.self) { tags, context in context.insert(Tag(name: "three")) }
        let next = try await b.sync()
        #expect(next.rejected == 0 && next.pushed == 1)
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Tag>()).map(\.name)) == ["same", "two", "three"])
        }
    }

    @Test(arguments: ServerKind.available)
    func aPushDeliveredTwiceAtOnceIsAppliedOnceAndAnsweredAlike(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind, policies: Self.summing())
        let transport = FaultyTransport(server: world.server)
        let a = try world.device(through: transport)
        a.context.insert(Counter(name: "c", value: 0))
        try a.context.save()
        try await a.sync()
        transport.duplicatesPushes.withLock { $0 = true }
        for _ in 1...10 {
            try edit(a, Counter.self) { counters, _ in counters[0].value += 1 }
            try await a.sync()
        }
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Counter>()).map(\.value) == [10])
        #expect(try a.all(Counter.self).map(\.value) == [10])
    }

    @Test func aStringTheServersDatabaseCannotStoreIsRefusedAndSyncGoesOn() async throws {
        try #require(PostgresServer.url != nil, "needs MODELKIT_TEST_POSTGRES_URL")
        let world = try SyncWorld(.postgres)
        let a = try world.device()
        a.context.insert(Note(title: "fine"))
        a.context.insert(Note(title: "nul\u{0}inside"))
        try a.context.save()
        let report = try await a.sync()
        #expect(report.pushed == 1)
        #expect(report.rejections.map(\.code) == [.invalidValue])
        #expect(report.rejections.first?.change.fields["title"]?.value == .text("nul\u{0}inside"))
        // The refused new row goes from the device, which goes on syncing.
        #expect(try a.all(Note.self).map(\.title) == ["fine"])
        try edit(a, Note.self) { notes, _ in notes[0].title = "still fine" }
        let next = try await a.sync()
        #expect(next.rejected == 0 && next.pushed == 1)
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()).map(\.title) == ["still fine"])
    }

    @Test(arguments: ServerKind.available)
    func aChangeTheServerFailsToApplyIsRefusedAloneAndTheRestOfThePushApplies(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let envelope = SyncEnvelope(schema: world.server.schema.fingerprint, device: a.client.device)
        // A value of another type than the property's: the model cannot take it.
        let bad = SyncChange(entity: "Counter", id: "bad", fields: ["name": SyncField(value: .text("c"), clock: "001700000000000-000000-d"), "value": SyncField(value: .text("ten"), clock: "001700000000000-000000-d")])
        let good = SyncChange(entity: "Counter", id: "good", fields: ["name": SyncField(value: .text("d"), clock: "001700000000000-000000-d"), "value": SyncField(value: .integer(4), clock: "001700000000000-000000-d")])
        let answer = try await world.server.push(SyncPushRequest(envelope: envelope, id: "p1", changes: [bad, good]))
        #expect(answer.rejections.map(\.id) == ["bad"] && answer.rejections.map(\.code) == [.invalidValue])
        #expect(answer.accepted == 1)
        #expect(answer.rows.first { $0.id == "bad" }?.deleted == true)
        let counters = try ModelContext(world.server.container).fetch(FetchDescriptor<Counter>())
        #expect(counters.map(\.name) == ["d"] && counters.map(\.value) == [4])
        // Sent again, it is answered alike and applied once.
        #expect(try await world.server.push(SyncPushRequest(envelope: envelope, id: "p1", changes: [bad, good])) == answer)
        #expect(try ModelContext(world.server.container).fetchCount(FetchDescriptor<Counter>()) == 1)
    }

    @Test(arguments: ServerKind.available)
    func aNewRowMergedIntoARowTheDeviceHasUnderAnotherValueBecomesThatRow(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Tag(name: "home")], with: b)
        // B renames the tag "work"; A, not knowing, tags a new note with a new "work" tag.
        try edit(b, Tag.self) { tags, _ in tags[0].name = "work" }
        try await b.sync()
        try edit(a, Note.self) { _, context in
            let note = Note(title: "n")
            context.insert(note)
            note.tags = [Tag(name: "work")]
        }
        try await a.sync()
        try await a.sync()
        try await b.sync()
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<Tag>()).map(\.name) == ["work"])
            #expect(try context.fetch(FetchDescriptor<Note>()).map(tagNames) == [["work"]])
        }
    }

    @Test(arguments: ServerKind.available)
    func renamesThatPassUniqueValuesBetweenRowsReachADeviceThatWasAway(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share(["x", "y", "p", "q"].map(Tag.init), with: b)
        // A chain (y gives way to z, then x takes y) and a swap (p and q trade names), each
        // rename a sync of its own on A; B, away meanwhile, pulls them in one page.
        for (from, to) in [("y", "z"), ("x", "y"), ("p", "t"), ("q", "p"), ("t", "q")] {
            try edit(a, Tag.self) { tags, _ in tags.first { $0.name == from }!.name = to }
            try await a.sync()
        }
        try await b.sync()
        try await b.sync()
        for device in [a, b] {
            #expect(Set(try device.all(Tag.self).map(\.name)) == ["y", "z", "p", "q"])
        }
        // Each row kept its identity: B's rows are the server's, name by name.
        let server = try ModelContext(world.server.container).fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.name)]))
        let synced = try b.all(Tag.self, sortBy: [SortDescriptor(\.name)])
        #expect(synced.map(\.name) == server.map(\.name))
        let next = try await b.sync()
        #expect(next.pushed == 0)
    }

    @Test(arguments: ServerKind.available)
    func aPushThatPassesAUniqueValueFromOneRowToAnotherIsAppliedWhole(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share(["x", "y"].map(Tag.init), with: b)
        // Offline, x is touched first, then y gives its name way, then x takes it: one push.
        for (from, to) in [("x", "x2"), ("y", "z"), ("x2", "y")] {
            try edit(a, Tag.self) { tags, _ in tags.first { $0.name == from }!.name = to }
        }
        let report = try await a.sync()
        #expect(report.rejected == 0)
        try await b.sync()
        for container in [a.container, b.container, world.server.container] {
            #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Tag>()).map(\.name)) == ["y", "z"])
        }
    }

    @Test(arguments: ServerKind.available)
    func aRowPulledWhileALocalRenameTakesItsUniqueValueIsNotLost(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device()
        let b = try world.device(through: transport)
        try await a.share([Tag(name: "x")], with: b)
        try edit(a, Tag.self) { _, context in context.insert(Tag(name: "work")) }
        try await a.sync()
        // While B's sync pulls A's new "work", B renames its "x" to "work".
        let container = b.container
        let renamed = Mutex(false)
        transport.beforePull.withLock {
            $0 = {
                guard !renamed.withLock({ $0 }) else { return }
                renamed.withLock { $0 = true }
                let context = ModelContext(container)
                try context.fetch(FetchDescriptor<Tag>()).first { $0.name == "x" }!.name = "work"
                try context.save()
            }
        }
        let report = try await b.sync()
        #expect(report.rejections.map(\.code) == [.uniqueConflict])
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            #expect(Set(try ModelContext(container).fetch(FetchDescriptor<Tag>()).map(\.name)) == ["x", "work"])
        }
    }

    @Test(arguments: ServerKind.available)
    func anEditBetweenCanonicallyEquivalentStringsTravels(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        try await a.share([Note(title: "\u{e9}")], with: b)
        try edit(a, Note.self) { notes, _ in notes[0].title = "e\u{301}" }
        try await a.sync()
        try await b.sync()
        for container in [a.container, b.container, world.server.container] {
            #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).map { Array($0.title.unicodeScalars) } == [["e", "\u{301}"]])
        }
    }

    @Test(arguments: ServerKind.available)
    func aRefusalIsReportedEvenWhenTheSyncThatGotItFailsAfterItsPush(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let transport = FaultyTransport(server: world.server)
        let a = try world.device()
        let b = try world.device(through: transport)
        try await a.share([Tag(name: "one"), Tag(name: "two")], with: b)
        try edit(a, Tag.self) { tags, _ in tags.first { $0.name == "one" }!.name = "same" }
        try await a.sync()
        try edit(b, Tag.self) { tags, _ in tags.first { $0.name == "two" }!.name = "same" }
        transport.beforePull.withLock { $0 = { throw FaultyTransport.Lost() } }
        await #expect(throws: SyncError.self) { try await b.sync() }
        transport.beforePull.withLock { $0 = nil }
        let report = try await b.sync()
        #expect(report.rejections.map(\.code) == [.uniqueConflict])
        #expect(try await b.sync().rejected == 0)
    }
}

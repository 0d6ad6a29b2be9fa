import Foundation
import ModelKit
@testable import ModelKitSync
import Testing

/// Field-level merges and the rules that settle edits of one property.
@Suite struct SyncConflictTests {
    /// Saves `edit` of the device's one note, in a context of its own.
    func editNote(on device: Device, _ edit: (Note) -> Void) throws {
        let context = ModelContext(device.container)
        let note = try #require(try context.fetch(FetchDescriptor<Note>()).first)
        edit(note)
        try context.save()
    }

    /// A world whose devices `a` and `b` both have one synced note.
    func twoDevicesWithANote(_ kind: ServerKind, policies: SyncPolicies = SyncPolicies()) async throws -> (SyncWorld, Device, Device) {
        let world = try SyncWorld(kind, policies: policies)
        let a = try world.device()
        let b = try world.device()
        a.context.insert(Note(title: "Draft", body: "first"))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        return (world, a, b)
    }

    @Test(arguments: ServerKind.available)
    func editsOfDifferentPropertiesOfOneRowBothSurviveEverywhere(_ kind: ServerKind) async throws {
        let (world, a, b) = try await twoDevicesWithANote(kind)
        try editNote(on: a) { $0.title = "Final" }
        try editNote(on: b) { $0.body = "second" }
        let first = try await a.sync()
        let second = try await b.sync()
        try await a.sync()
        #expect(first.conflicts == 0 && second.conflicts == 0)
        for device in [a, b] {
            let note = try #require(try device.all(Note.self).first)
            #expect(note.title == "Final" && note.body == "second")
        }
        let server = try ModelContext(world.server.container).fetch(FetchDescriptor<Note>())
        #expect(server.map(\.title) == ["Final"] && server.map(\.body) == ["second"])
    }

    @Test(arguments: ServerKind.available)
    func theLaterEditOfAPropertyWinsWhicheverDeviceSyncsLast(_ kind: ServerKind) async throws {
        let (_, a, b) = try await twoDevicesWithANote(kind)
        try editNote(on: a) { $0.title = "older edit" }  // A edits first, and stays offline
        await wallClockMovesOn()
        try editNote(on: b) { $0.title = "newer edit" }
        try await b.sync()
        let report = try await a.sync()  // A pushes last: its edit is older, and loses
        try await b.sync()
        #expect(report.conflicts == 1)
        #expect(try a.all(Note.self).map(\.title) == ["newer edit"])
        #expect(try b.all(Note.self).map(\.title) == ["newer edit"])
    }

    /// Found by modelkit-sync-chaos (seed 16873416852052178720): a device that set a property
    /// away and back to what it had from the server sent nothing, and an older edit elsewhere won.
    @Test(arguments: ServerKind.available)
    func aPropertySetBackToItsSyncedValueLaterStillWinsOverAnOlderEdit(_ kind: ServerKind) async throws {
        let (world, a, b) = try await twoDevicesWithANote(kind)
        try editNote(on: b) { $0.body = "older edit" }
        await wallClockMovesOn()
        try editNote(on: a) { $0.body = "for a moment" }
        try editNote(on: a) { $0.body = "first" }
        try await b.sync()
        try await a.sync()
        try await b.sync()
        #expect(try a.all(Note.self).map(\.body) == ["first"])
        #expect(try b.all(Note.self).map(\.body) == ["first"])
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()).map(\.body) == ["first"])
    }

    /// Found by modelkit-sync-chaos (a tag's stand-in name reached the server): a property the
    /// device set and set back, then took from the server in a pull, holds the server's value,
    /// and nothing of the local writes goes out.
    @Test(arguments: ServerKind.available)
    func aPropertyAPullWroteAfterALocalWriteIsNotPushed(_ kind: ServerKind) async throws {
        let (world, a, b) = try await twoDevicesWithANote(kind)
        try editNote(on: a) { $0.body = "for a moment" }
        try editNote(on: a) { $0.body = "first" }
        try editNote(on: b) { $0.body = "theirs" }
        try await b.sync()
        var report = SyncReport()
        try await a.client.pull(a.client.envelope, into: &report)
        #expect(try a.all(Note.self).map(\.body) == ["theirs"])
        let client = a.client
        #expect(try await client.work { try ClientPush(client: client).prepare(client.envelope) } == nil)
        try await a.sync()
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()).map(\.body) == ["theirs"])
    }

    @Test(arguments: ServerKind.available)
    func serverWinsKeepsTheServersValueAgainstAConflictingPush(_ kind: ServerKind) async throws {
        var policies = SyncPolicies()
        policies.set(\Note.title, .serverWins)
        let (_, a, b) = try await twoDevicesWithANote(kind, policies: policies)
        try editNote(on: a) { $0.title = "from A" }
        try await a.sync()
        await wallClockMovesOn()
        try editNote(on: b) { $0.title = "from B, later" }
        let report = try await b.sync()
        #expect(report.conflicts == 1)
        try await a.sync()
        #expect(try a.all(Note.self).map(\.title) == ["from A"])
        #expect(try b.all(Note.self).map(\.title) == ["from A"])
    }

    @Test(arguments: ServerKind.available)
    func aCustomRuleMergesConcurrentIncrementsOfACounter(_ kind: ServerKind) async throws {
        var policies = SyncPolicies()
        policies.set(\Counter.value, .custom { c in c.server + c.incoming - (c.base ?? 0) })
        let world = try SyncWorld(kind, policies: policies)
        let a = try world.device()
        let b = try world.device()
        a.context.insert(Counter(name: "visits", value: 10))
        try a.context.save()
        try await a.sync()
        try await b.sync()
        for (device, amount) in [(a, 2), (b, 3)] {
            let context = ModelContext(device.container)
            try context.fetch(FetchDescriptor<Counter>())[0].value += amount
            try context.save()
        }
        try await a.sync()
        let report = try await b.sync()
        try await a.sync()
        #expect(report.conflicts == 1)
        #expect(try a.all(Counter.self).map(\.value) == [15])
        #expect(try b.all(Counter.self).map(\.value) == [15])
    }

    @Test(arguments: ServerKind.available)
    func toManyRelationshipsMergeAsSetsAndInversesHoldEverywhere(_ kind: ServerKind) async throws {
        let (world, a, b) = try await twoDevicesWithANote(kind)
        try editNote(on: a) { $0.tags.append(Tag(name: "x")) }
        try editNote(on: b) { $0.tags.append(Tag(name: "y")) }
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            let note = try #require(try context.fetch(FetchDescriptor<Note>()).first)
            #expect(Set(note.tags.map(\.name)) == ["x", "y"])
            for tag in try context.fetch(FetchDescriptor<Tag>()) { #expect(tag.notes.map(\.title) == ["Draft"]) }
        }
        // A removal merges too.
        try editNote(on: b) { $0.tags.removeAll { $0.name == "x" } }
        try await b.sync()
        try await a.sync()
        #expect(try a.all(Note.self).first?.tags.map(\.name) == ["y"])
    }

    @Test(arguments: ServerKind.available)
    func aUniqueValueCreatedOnTwoDevicesIsOneRowEverywhere(_ kind: ServerKind) async throws {
        let world = try SyncWorld(kind)
        let a = try world.device()
        let b = try world.device()
        for (device, title) in [(a, "from A"), (b, "from B")] {
            let note = Note(title: title)
            device.context.insert(note)
            note.tags = [Tag(name: "work")]
            try device.context.save()
        }
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for container in [a.container, b.container, world.server.container] {
            let context = ModelContext(container)
            let tags = try context.fetch(FetchDescriptor<Tag>())
            #expect(tags.map(\.name) == ["work"])
            #expect(Set(tags.first?.notes.map(\.title) ?? []) == ["from A", "from B"])
            for note in try context.fetch(FetchDescriptor<Note>()) { #expect(note.tags.map(\.name) == ["work"]) }
        }
    }
}

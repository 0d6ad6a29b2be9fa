import Foundation
import ModelKit
import ModelKitSync
import Testing

/// Many devices make random offline edits, inserts, deletes and relationship changes and sync in
/// random order; at the end every device equals the server, and the server equals a model of
/// the rules: the notes made and never deleted, each with its last body edit.
@Suite struct SyncConvergenceTests {
    /// A seeded generator (SplitMix64), so that a failing run can be replayed from its seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What a store holds, in a form two stores compare by.
    struct Snapshot: Equatable, CustomStringConvertible {
        var notes: [String]
        var tags: [String]
        var folders: [String]
        var description: String { "notes \(notes)\ntags \(tags)\nfolders \(folders)" }

        init(_ container: ModelContainer) throws {
            let context = ModelContext(container)
            notes = try context.fetch(FetchDescriptor<Note>()).map { note in
                "\(note.title)|\(note.body)|\(note.pinned)|\(note.folder?.name ?? "-")|\(note.tags.map(\.name).sorted().joined(separator: ","))"
            }.sorted()
            tags = try context.fetch(FetchDescriptor<Tag>()).map { "\($0.name):\($0.notes.map(\.title).sorted())" }.sorted()
            folders = try context.fetch(FetchDescriptor<Folder>()).map { "\($0.name):\($0.notes.map(\.title).sorted())" }.sorted()
        }
    }

    @Test(arguments: ServerKind.available)
    func randomOfflineEditsConvergeToTheRules(_ kind: ServerKind) async throws {
        let seed = ProcessInfo.processInfo.environment["SYNC_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("SyncConvergenceTests seed: \(seed) (replay with SYNC_SEED=\(seed))")
        var random = Generator(state: seed)
        let world = try SyncWorld(kind)
        let devices = try (0..<3).map { _ in try world.device() }
        let first = devices[0]
        for name in ["home", "work"] { first.context.insert(Folder(name: name)) }
        try first.context.save()
        for device in devices { try await device.sync() }

        var made = 0
        var deleted = Set<String>()
        var lastBody: [String: String] = [:]
        for step in 0..<160 {
            let device = devices[Int.random(in: 0..<devices.count, using: &random)]
            let context = ModelContext(device.container)
            let notes = try context.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.title)]))
            let choice = notes.isEmpty ? 0 : Int.random(in: 0..<8, using: &random)
            let note = notes.isEmpty ? nil : notes[Int.random(in: 0..<notes.count, using: &random)]
            switch (choice, note) {
            case (0, _):
                made += 1
                context.insert(Note(title: "n\(made)"))
            case (1, let note?), (2, let note?):
                note.body = "v\(step)"
                lastBody[note.title] = note.body
            case (3, let note?):
                note.pinned.toggle()
            case (4, let note?):
                context.delete(note)
                deleted.insert(note.title)
            case (5, let note?):
                let name = ["a", "b", "c"][Int.random(in: 0..<3, using: &random)]
                let tag = try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == name })).first ?? Tag(name: name)
                if !note.tags.contains(where: { $0 === tag }) { note.tags.append(tag) }
            case (6, let note?):
                if !note.tags.isEmpty { note.tags.remove(at: Int.random(in: 0..<note.tags.count, using: &random)) }
            case (7, let note?):
                let folders = try context.fetch(FetchDescriptor<Folder>(sortBy: [SortDescriptor(\.name)]))
                note.folder = Bool.random(using: &random) ? nil : folders.randomElement(using: &random)
            default: break
            }
            try context.save()
            if Int.random(in: 0..<4, using: &random) == 0 {
                try await devices[Int.random(in: 0..<devices.count, using: &random)].sync()
            }
            // The last body edit in program order must win: the next step's edits are stamped later.
            await wallClockMovesOn()
        }
        for _ in 0..<2 {
            for device in devices { try await device.sync() }
        }

        let server = try Snapshot(world.server.container)
        for device in devices {
            let snapshot = try Snapshot(device.container)
            #expect(snapshot == server, "seed \(seed): a device differs from the server")
        }
        let alive = Set((1...max(made, 1)).map { "n\($0)" }).subtracting(deleted).filter { _ in made > 0 }
        let titles = try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()).map(\.title)
        #expect(Set(titles) == alive, "seed \(seed): the server's notes are not those made and never deleted")
        #expect(titles.count == Set(titles).count, "seed \(seed): a note is on the server twice")
        for note in try ModelContext(world.server.container).fetch(FetchDescriptor<Note>()) {
            #expect(note.body == (lastBody[note.title] ?? ""), "seed \(seed): \(note.title) does not hold its last body edit")
        }
    }
}

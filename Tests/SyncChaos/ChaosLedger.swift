import Foundation
import ModelKitSync
import Synchronization

/// What the run did, as the reference model needs it: every row made, edit, increment, delete
/// and tag change, with the device and wall-clock time of its save; the server's rejections; the
/// log; and the problems met on the way. Shared by the run and its sync tasks.
final class ChaosLedger: Sendable {
    /// One edit of a property: its value (as ``ChaosValues`` writes it), device and time.
    /// Uncertain once a rejection may have refused it.
    struct Edit: Sendable {
        let device: Int
        let time: Date
        let value: String
        var uncertain = false
    }

    struct Counter: Sendable {
        var initial: Int
        var increments = 0
        var deleted = false
    }

    struct Note: Sendable {
        /// Edits by property (title, body, score, folder), the values it was made with first.
        var edits: [String: [Edit]]
        /// Tag names added to the note and removed from it, each as an edit of that name.
        var added: [Edit] = []
        var removed: [Edit] = []
        var deleted = false
        /// Whether a rejection may have refused the row itself (it was new when refused).
        var maybeRefused = false
    }

    struct Folder: Sendable {
        var titles: [Edit]
        var deleted = false
    }

    struct Tags: Sendable {
        /// Names made (plain, or again in the save that deleted the old row).
        var created: Set<String> = []
        /// Names whose row some device deleted, with or without making it again.
        var deleted: Set<String> = []
        /// Names deleted without being made again in the same save.
        var deletedOnly: Set<String> = []
        /// Names a rename left or took.
        var renamed: Set<String> = []
    }

    struct Facts: Sendable {
        var counters: [String: Counter] = [:]
        var notes: [String: Note] = [:]
        var folders: [String: Folder] = [:]
        var tags = Tags()
        var rejections: [String] = []
    }

    private struct State {
        var facts = Facts()
        var log: [String] = []
        var problems: [String] = []
    }

    private let state = Mutex(State())
    private let start = Date()
    let isPostgres: Bool

    init(isPostgres: Bool) { self.isPostgres = isPostgres }

    var facts: Facts { state.withLock { $0.facts } }
    var log: [String] { state.withLock { $0.log } }
    var problems: [String] { state.withLock { $0.problems } }

    func log(_ line: String) {
        let millis = Int(Date().timeIntervalSince(start) * 1000)
        state.withLock { $0.log.append("\(millis) ms \(line)") }
    }

    func problem(_ text: String) {
        log("PROBLEM: \(text)")
        state.withLock { $0.problems.append(text) }
    }

    func update(_ body: (inout Facts) -> Void) { state.withLock { body(&$0.facts) } }

    /// Accounts for a change the server refused from `device`, reported by a sync that ended at
    /// `time`: the device's edits of the fields refused, up to then, may not have happened. A
    /// refusal must be one the run provokes: a tag renamed into a taken name (a unique
    /// conflict), or a string with NUL on PostgreSQL (an invalid value).
    func rejected(_ rejection: SyncRejection, noteKey: String?, device: Int, at time: Date) {
        log("d\(device) rejection: \(rejection)")
        let hasNUL = rejection.change.fields.values.contains { if case .text(let text) = $0.value { text.contains("\u{0}") } else { false } }
        switch (rejection.entity, rejection.code) {
        case ("ChaosTag", .uniqueConflict) where rejection.change.fields["name"] != nil: break
        case ("ChaosNote", .invalidValue) where isPostgres && hasNUL: break
        default: problem("d\(device): a rejection the run did not provoke: \(rejection)")
        }
        update { facts in
            facts.rejections.append("d\(device) \(rejection)")
            guard rejection.entity == "ChaosNote", let key = noteKey, var note = facts.notes[key] else { return }
            for name in rejection.change.fields.keys {
                if name == "tags" {
                    for index in note.added.indices where note.added[index].device == device && note.added[index].time <= time { note.added[index].uncertain = true }
                    for index in note.removed.indices where note.removed[index].device == device && note.removed[index].time <= time { note.removed[index].uncertain = true }
                } else if var edits = note.edits[name] {
                    for index in edits.indices where edits[index].device == device && edits[index].time <= time { edits[index].uncertain = true }
                    note.edits[name] = edits
                }
            }
            if rejection.change.fields["key"] != nil { note.maybeRefused = true }
            facts.notes[key] = note
        }
    }

    /// The log and problems, for a failure's report.
    var transcript: String {
        state.withLock { state in
            (["operations and syncs:"] + state.log.map { "  " + $0 }).joined(separator: "\n")
        }
    }
}

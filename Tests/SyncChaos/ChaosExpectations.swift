import Foundation

/// The reference model: what the server must hold once every device has synced with faults
/// off, from what the ledger says was done. Where the order the server applied concurrent
/// changes in decides (a name made on one device while another deleted it), it accepts
/// either outcome.
struct ChaosExpectations {
    let facts: ChaosLedger.Facts

    /// Two edits within this of each other may apply in either order: clocks that tie within a
    /// millisecond order by counter and node, not by wall clock.
    static let tolerance: TimeInterval = 0.005

    /// How the server differs from the model, one line per difference.
    func problems(of server: ChaosSnapshot) -> [String] {
        var problems: [String] = []
        for (entity, byKey) in server.rows {
            for (key, rows) in byKey where rows.count > 1 { problems.append("\(entity) \(key) is on the server \(rows.count) times") }
        }
        let counters = server["ChaosCounter"]
        for (key, counter) in facts.counters {
            let row = counters[key]?.first
            if counter.deleted {
                if row != nil { problems.append("counter \(key) was deleted and is on the server") }
            } else if let row {
                let expected = String(counter.initial + counter.increments)
                if row.fields["value"] != expected {
                    problems.append("counter \(key) is \(row.fields["value"] ?? "?"), not \(counter.initial) + \(counter.increments) = \(expected)")
                }
            } else {
                problems.append("counter \(key) was never deleted and is not on the server")
            }
        }
        problems += unknown(counters, facts.counters.keys, "counter")

        let folders = server["ChaosFolder"]
        for (key, folder) in facts.folders {
            let row = folders[key]?.first
            if folder.deleted {
                if row != nil { problems.append("folder \(key) was deleted and is on the server") }
            } else if let row {
                problems += check(row.fields["title"], Self.candidates(folder.titles), "folder \(key).title")
            } else {
                problems.append("folder \(key) was never deleted and is not on the server")
            }
        }
        problems += unknown(folders, facts.folders.keys, "folder")

        let notes = server["ChaosNote"]
        let deletedFolders = Set(facts.folders.filter(\.value.deleted).keys.map(ChaosValues.reference))
        for (key, note) in facts.notes {
            let row = notes[key]?.first
            // In a folder that was deleted: the cascade takes it if the server had it there then.
            let mayBeCascaded = note.edits["folder", default: []].contains { deletedFolders.contains($0.value) }
            if note.deleted {
                if row != nil { problems.append("note \(key) was deleted and is on the server") }
                continue
            }
            guard let row else {
                if !mayBeCascaded && !note.maybeRefused { problems.append("note \(key) was never deleted and is not on the server") }
                continue
            }
            for field in ["title", "body", "score"] {
                problems += check(row.fields[field], Self.candidates(note.edits[field, default: []]), "note \(key).\(field)")
            }
            // An edit's folder deleted before the edit reached the server is not set.
            let folders = Self.candidates(note.edits["folder", default: []])
            if folders.isDisjoint(with: deletedFolders) { problems += check(row.fields["folder"], folders, "note \(key).folder") }
            problems += tagProblems(note, row.tags, "note \(key)")
        }
        problems += unknown(notes, facts.notes.keys, "note")

        let tags = Set(server["ChaosTag"].keys)
        let tagFacts = facts.tags
        for name in tagFacts.created.subtracting(tagFacts.deletedOnly).subtracting(tagFacts.renamed) where !tags.contains(name) {
            problems.append("tag \(ChaosValues.text(name)) was made, never deleted nor renamed, and is not on the server")
        }
        for name in tags where !tagFacts.created.contains(name) && !tagFacts.renamed.contains(name) {
            problems.append("tag \(ChaosValues.text(name)) is on the server and no device made it")
        }
        return problems
    }

    /// A note's tags: a name some device added, none removed, and no device deleted or renamed
    /// is there; a name no device added nor renamed is not.
    private func tagProblems(_ note: ChaosLedger.Note, _ names: Set<String>, _ what: String) -> [String] {
        var problems: [String] = []
        let tags = facts.tags
        let added = Set(note.added.map(\.value))
        let addedSurely = Set(note.added.filter { !$0.uncertain }.map(\.value))
        let removed = Set(note.removed.map(\.value))
        for name in addedSurely.subtracting(removed).subtracting(tags.deleted).subtracting(tags.renamed) where !names.contains(name) {
            problems.append("\(what) lacks tag \(ChaosValues.text(name)), added and never removed, deleted nor renamed")
        }
        for name in names where !added.contains(name) && !tags.renamed.contains(name) {
            problems.append("\(what) has tag \(ChaosValues.text(name)), which no device added to it")
        }
        return problems
    }

    /// The values last-edit-wins may have left: the latest edit not refused, and those within
    /// the tolerance of it or later (refused, maybe).
    static func candidates(_ edits: [ChaosLedger.Edit]) -> Set<String> {
        guard let latest = edits.filter({ !$0.uncertain }).map(\.time).max() else { return Set(edits.map(\.value)) }
        return Set(edits.filter { $0.time >= latest.addingTimeInterval(-tolerance) }.map(\.value))
    }

    private func check(_ value: String?, _ candidates: Set<String>, _ what: String) -> [String] {
        guard let value, !candidates.contains(value) else { return [] }
        return ["\(what) is \(value), not the last edit's \(candidates.sorted().joined(separator: " or "))"]
    }

    private func unknown(_ rows: [String: [ChaosSnapshot.Row]], _ known: some Collection<String>, _ what: String) -> [String] {
        let known = Set(known)
        return rows.keys.filter { !known.contains($0) }.sorted().map { "\(what) \($0) is on the server and no device made it" }
    }
}

import Foundation
import ModelKit

/// What one store holds of the chaos models: each row by its key (a tag by its name) with its
/// sync identifier and its values as ``ChaosValues`` writes them. Two stores compare by their
/// ``lines``, sorted, which show every difference of identity or value.
struct ChaosSnapshot: Equatable {
    struct Row: Equatable {
        var gid: String
        var fields: [String: String]
        /// A note's tag names.
        var tags: Set<String> = []
    }

    /// Rows by entity, then key; more than one row under a key is a row made twice.
    var rows: [String: [String: [Row]]] = [:]

    init(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        var gids: [String: String] = [:]
        for row in try context.replicaRead({ try $0.rows("SELECT entity, row_key, gid FROM _modelkit_sync_ids WHERE deleted = 0") }) {
            if case .text(let entity) = row[0], case .integer(let key) = row[1], case .text(let gid) = row[2] { gids["\(entity)/\(key)"] = gid }
        }
        func add(_ model: some PersistentModel, _ key: String, _ fields: [String: String], tags: [String] = []) {
            let entity = String(describing: type(of: model))
            let gid = model._rowKey.flatMap { gids["\(entity)/\($0)"] } ?? "no-gid"
            rows[entity, default: [:]][key, default: []].append(Row(gid: gid, fields: fields, tags: Set(tags)))
        }
        for counter in try context.fetch(FetchDescriptor<ChaosCounter>()) {
            add(counter, counter.key, ["value": String(counter.value)])
        }
        for note in try context.fetch(FetchDescriptor<ChaosNote>()) {
            add(
                note, note.key,
                [
                    "title": ChaosValues.text(note.title), "body": ChaosValues.text(note.body), "score": ChaosValues.real(note.score),
                    "folder": ChaosValues.reference(note.folder?.key), "tags": ChaosValues.names(note.tags.map(\.name)),
                ], tags: note.tags.map(\.name))
        }
        for tag in try context.fetch(FetchDescriptor<ChaosTag>()) { add(tag, tag.name, [:]) }
        for folder in try context.fetch(FetchDescriptor<ChaosFolder>()) { add(folder, folder.key, ["title": ChaosValues.text(folder.title)]) }
    }

    /// One line per row, sorted.
    var lines: [String] {
        rows.flatMap { entity, byKey in
            byKey.flatMap { key, rows in
                rows.map { row in
                    "\(entity) \(entity == "ChaosTag" ? ChaosValues.text(key) : key) gid=\(row.gid) "
                        + row.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                }
            }
        }.sorted()
    }

    /// The rows of `entity` by key.
    subscript(entity: String) -> [String: [Row]] { rows[entity] ?? [:] }

    /// The lines only one of two snapshots has, marked `-` (this one's) and `+` (the other's).
    func diff(_ other: ChaosSnapshot) -> [String] {
        let mine = lines
        let theirs = other.lines
        return mine.filter { !theirs.contains($0) }.map { "- " + $0 } + theirs.filter { !mine.contains($0) }.map { "+ " + $0 }
    }
}

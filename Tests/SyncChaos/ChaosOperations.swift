import Foundation
import ModelKit

/// Random offline edits of a device's store, each one save, recorded in the ledger with the
/// wall-clock time right after the save returns.
struct ChaosOperations {
    let ledger: ChaosLedger
    /// Rows made so far, for their keys.
    private var made = 0

    init(ledger: ChaosLedger) { self.ledger = ledger }

    /// What an operation did: its description, and how the ledger records it at the save's time.
    private typealias Done = (String, (inout ChaosLedger.Facts, Date) -> Void)
    private typealias Edit = ChaosLedger.Edit

    private enum Kind: CaseIterable {
        case createCounter, increment, deleteCounter, createNote, editText, editScore, setFolder, deleteNote
        case addTag, removeTag, deleteTag, remakeTag, renameTag, createFolder, editFolder, deleteFolder

        var weight: Int {
            switch self {
            case .increment, .editText: 14
            case .addTag: 10
            case .createNote: 8
            case .createCounter, .removeTag: 6
            case .editScore, .setFolder: 5
            case .renameTag: 4
            case .deleteNote, .deleteTag, .remakeTag, .createFolder, .editFolder: 3
            case .deleteCounter: 2
            case .deleteFolder: 1
            }
        }
    }

    /// Performs one random operation on `device`; logs it, or why the device refused it.
    mutating func perform(on device: ChaosDevice, random: inout ChaosRandom) {
        var roll = Int.random(in: 0..<Kind.allCases.map(\.weight).reduce(0, +), using: &random)
        let kind = Kind.allCases.first { roll -= $0.weight; return roll < 0 }!
        made += 1
        let step = made
        do {
            guard let done = try device.edit({ context in try operation(kind, step, device, context, &random) }) else { return }
            let time = Date()
            ledger.update { done.1(&$0, time) }
            ledger.log("\(device.name): \(done.0)")
        } catch {
            ledger.log("\(device.name): \(kind) not saved: \(error)")
        }
    }

    private func operation(_ kind: Kind, _ step: Int, _ device: ChaosDevice, _ context: ModelContext, _ random: inout ChaosRandom) throws -> Done? {
        let d = device.index
        let key = "\(device.name)-\(step)"
        func fetch<T: PersistentModel>(_: T.Type) throws -> [T] { try context.fetch(FetchDescriptor<T>()) }
        func tag(named name: String) throws -> (ChaosTag, isNew: Bool) {
            if let tag = try fetch(ChaosTag.self).first(where: { $0.name == name }) { return (tag, false) }
            let tag = ChaosTag(name: name)
            context.insert(tag)
            return (tag, true)
        }
        func text() -> String { random.chance(50) ? random.pick(ChaosValues.strings) + " \(step)" : random.pick(ChaosValues.strings) }
        switch kind {
        case .createCounter:
            let initial = Int.random(in: -50...50, using: &random)
            context.insert(ChaosCounter(key: key, value: initial))
            return ("create counter \(key) = \(initial)", { facts, _ in facts.counters[key] = .init(initial: initial) })
        case .increment:
            let counters = try fetch(ChaosCounter.self)
            guard !counters.isEmpty else { return nil }
            let counter = random.pick(counters)
            let amount = random.pick([-3, -1, 1, 2, 5, 7, 20])
            counter.value += amount
            let target = counter.key
            return ("increment \(target) by \(amount)", { facts, _ in facts.counters[target]?.increments += amount })
        case .deleteCounter:
            let counters = try fetch(ChaosCounter.self)
            guard !counters.isEmpty else { return nil }
            let counter = random.pick(counters)
            let target = counter.key
            context.delete(counter)
            return ("delete counter \(target)", { facts, _ in facts.counters[target]?.deleted = true })
        case .createNote:
            let folders = try fetch(ChaosFolder.self)
            let folder = folders.isEmpty || random.chance(50) ? nil : random.pick(folders)
            let note = ChaosNote(key: key, title: text(), body: text(), score: random.pick(ChaosValues.reals), folder: folder)
            context.insert(note)
            var names: [String] = []
            var created: [String] = []
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let name = random.pick(ChaosValues.tagNames)
                guard !names.contains(name) else { continue }
                let (tag, isNew) = try tag(named: name)
                note.tags.append(tag)
                names.append(name)
                if isNew { created.append(name) }
            }
            let values = [
                "title": ChaosValues.text(note.title), "body": ChaosValues.text(note.body), "score": ChaosValues.real(note.score),
                "folder": ChaosValues.reference(folder?.key),
            ]
            return (
                "create note \(key) " + values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + " tags " + ChaosValues.names(names),
                { facts, time in
                    facts.notes[key] = .init(edits: values.mapValues { [Edit(device: d, time: time, value: $0)] })
                    facts.notes[key]?.added = names.map { Edit(device: d, time: time, value: $0) }
                    facts.tags.created.formUnion(created)
                }
            )
        case .editText, .editScore, .setFolder:
            let notes = try fetch(ChaosNote.self)
            guard !notes.isEmpty else { return nil }
            let note = random.pick(notes)
            let field: String
            let value: String
            switch kind {
            case .editText:
                field = random.chance(50) ? "title" : "body"
                let new = text()
                value = ChaosValues.text(new)
                guard value != ChaosValues.text(field == "title" ? note.title : note.body) else { return nil }
                if field == "title" { note.title = new } else { note.body = new }
            case .editScore:
                field = "score"
                let new = random.chance(70) ? random.pick(ChaosValues.reals) : Double(Int.random(in: -1000...1000, using: &random)) / 8
                guard new.bitPattern != note.score.bitPattern else { return nil }
                note.score = new
                value = ChaosValues.real(new)
            default:
                field = "folder"
                let folders = try fetch(ChaosFolder.self)
                let folder = folders.isEmpty || random.chance(30) ? nil : random.pick(folders)
                guard folder?.key != note.folder?.key else { return nil }
                note.folder = folder
                value = ChaosValues.reference(folder?.key)
            }
            let target = note.key
            return ("set \(target).\(field) = \(value)", { facts, time in facts.notes[target]?.edits[field, default: []].append(Edit(device: d, time: time, value: value)) })
        case .deleteNote:
            let notes = try fetch(ChaosNote.self)
            guard !notes.isEmpty else { return nil }
            let note = random.pick(notes)
            let target = note.key
            context.delete(note)
            return ("delete note \(target)", { facts, _ in facts.notes[target]?.deleted = true })
        case .addTag:
            let notes = try fetch(ChaosNote.self)
            guard !notes.isEmpty else { return nil }
            let note = random.pick(notes)
            let name = random.pick(ChaosValues.tagNames)
            guard !note.tags.contains(where: { $0.name == name }) else { return nil }
            let (tag, isNew) = try tag(named: name)
            note.tags.append(tag)
            let target = note.key
            return (
                "add tag \(ChaosValues.text(name))\(isNew ? " (new)" : "") to \(target)",
                { facts, time in
                    facts.notes[target]?.added.append(Edit(device: d, time: time, value: name))
                    if isNew { facts.tags.created.insert(name) }
                }
            )
        case .removeTag:
            let notes = try fetch(ChaosNote.self).filter { !$0.tags.isEmpty }
            guard !notes.isEmpty else { return nil }
            let note = random.pick(notes)
            let name = random.pick(note.tags.map(\.name).sorted())
            note.tags.removeAll { $0.name == name }
            let target = note.key
            return (
                "remove tag \(ChaosValues.text(name)) from \(target)",
                { facts, time in facts.notes[target]?.removed.append(Edit(device: d, time: time, value: name)) }
            )
        case .deleteTag, .remakeTag:
            let tags = try fetch(ChaosTag.self).sorted { $0.name < $1.name }
            guard !tags.isEmpty else { return nil }
            let tag = random.pick(tags)
            let name = tag.name
            context.delete(tag)
            guard kind == .remakeTag else {
                return (
                    "delete tag \(ChaosValues.text(name))",
                    { facts, _ in
                        facts.tags.deleted.insert(name)
                        facts.tags.deletedOnly.insert(name)
                    }
                )
            }
            let again = ChaosTag(name: name)
            context.insert(again)
            let notes = try fetch(ChaosNote.self)
            let note = notes.isEmpty || random.chance(50) ? nil : random.pick(notes)
            note?.tags.append(again)
            let target = note?.key
            return (
                "delete tag \(ChaosValues.text(name)) and make it again\(target.map { " on \($0)" } ?? "") in one save",
                { facts, time in
                    facts.tags.deleted.insert(name)
                    facts.tags.created.insert(name)
                    if let target { facts.notes[target]?.added.append(Edit(device: d, time: time, value: name)) }
                }
            )
        case .renameTag:
            let tags = try fetch(ChaosTag.self).sorted { $0.name < $1.name }
            let free = ChaosValues.tagNames.filter { name in !tags.contains { $0.name == name } }
            guard !tags.isEmpty, !free.isEmpty else { return nil }
            let tag = random.pick(tags)
            let (old, new) = (tag.name, random.pick(free))
            tag.name = new
            return ("rename tag \(ChaosValues.text(old)) to \(ChaosValues.text(new))", { facts, _ in facts.tags.renamed.formUnion([old, new]) })
        case .createFolder:
            let title = "folder \(step)"
            context.insert(ChaosFolder(key: key, title: title))
            return (
                "create folder \(key)",
                { facts, time in facts.folders[key] = .init(titles: [Edit(device: d, time: time, value: ChaosValues.text(title))]) }
            )
        case .editFolder:
            let folders = try fetch(ChaosFolder.self)
            guard !folders.isEmpty else { return nil }
            let folder = random.pick(folders)
            let title = random.pick(ChaosValues.strings.filter { !$0.contains("\u{0}") }) + " \(step)"
            folder.title = title
            let target = folder.key
            return (
                "set folder \(target).title = \(ChaosValues.text(title))",
                { facts, time in facts.folders[target]?.titles.append(Edit(device: d, time: time, value: ChaosValues.text(title))) }
            )
        case .deleteFolder:
            let folders = try fetch(ChaosFolder.self)
            guard !folders.isEmpty else { return nil }
            let folder = random.pick(folders)
            let target = folder.key
            let cascaded = folder.notes.map(\.key)
            context.delete(folder)
            return (
                "delete folder \(target) (and its notes \(cascaded))",
                { facts, _ in
                    facts.folders[target]?.deleted = true
                    for note in cascaded { facts.notes[note]?.deleted = true }
                }
            )
        }
    }
}

/// Changes to to-many relationships that are not loaded yet, made through their inverse
/// (`book.shelf = shelf` adds the book to `shelf.books`, `post.labels.append(label)` adds the post
/// to `label.posts`), kept until the list loads: loading all of a list to add or remove one model
/// would make joining a large list cost its length.
///
/// When the list loads, its stored models take the changes in the order they were made (see
/// ``apply(to:list:of:)``). A list linked by its inverse's foreign key has nothing else to save:
/// the to-one's change is what the save writes. The owning side of a join table writes the
/// links the changes add and remove (see ``ModelContext/writeJoinTables(of:in:)``).
///
/// A value type, so that a transaction's snapshot keeps the changes made before it.
struct DeferredListChanges {
    private struct Change {
        let column: Int
        let target: any PersistentModel
        let joins: Bool
    }

    /// The changes by owner, with the owner held so that its identifier stays its own.
    private var changes: [ObjectIdentifier: (owner: any PersistentModel, changes: [Change])] = [:]

    /// Records that `target` joins (or leaves) `owner`'s to-many at `column`.
    mutating func record(_ target: any PersistentModel, joins: Bool, list column: Int, of owner: any PersistentModel) {
        let change = Change(column: column, target: target, joins: joins)
        changes[ObjectIdentifier(owner), default: (owner, [])].changes.append(change)
    }

    /// `loaded`, the stored models of `owner`'s to-many at `column`, with the changes recorded for
    /// it made in order, which are then dropped: a model joining is appended unless the list has
    /// it, a model leaving is removed. One pass over the list, however many changes. (A deleted
    /// model stays in lists until the save, loaded or not.)
    mutating func apply(
        to loaded: [any PersistentModel], list column: Int, of owner: any PersistentModel
    ) -> [any PersistentModel] {
        let id = ObjectIdentifier(owner)
        guard let entry = changes[id], entry.changes.contains(where: { $0.column == column }) else { return loaded }
        let remaining = entry.changes.filter { $0.column != column }
        changes[id] = remaining.isEmpty ? nil : (entry.owner, remaining)
        // Per model the changes touch: whether it ends in the list, and when it was appended, if
        // it was (nil: where it was loaded).
        var outcome: [ObjectIdentifier: (isIn: Bool, appended: Int?, model: any PersistentModel)] = [:]
        let members = Set(loaded.map { ObjectIdentifier($0) })
        for (order, change) in entry.changes.enumerated() where change.column == column {
            let target = ObjectIdentifier(change.target)
            var state = outcome[target] ?? (members.contains(target), nil, change.target)
            if change.joins, !state.isIn {
                state = (true, order, change.target)
            } else if !change.joins, state.isIn {
                state = (false, nil, change.target)
            }
            outcome[target] = state
        }
        let appended = outcome.values.compactMap { state in state.isIn ? state.appended.map { ($0, state.model) } : nil }
        return loaded.filter { model in outcome[ObjectIdentifier(model)].map { $0.isIn && $0.appended == nil } ?? true }
            + appended.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// What the changes recorded for `owner`'s to-many at `column` come to, for a list that never
    /// loaded them: the models whose last change joins it, and those whose last change leaves it.
    func outcome(
        of owner: any PersistentModel, list column: Int
    ) -> (joined: [any PersistentModel], left: [any PersistentModel]) {
        var last: [ObjectIdentifier: Change] = [:]
        for change in changes[ObjectIdentifier(owner)]?.changes ?? [] where change.column == column {
            last[ObjectIdentifier(change.target)] = change
        }
        return (last.values.filter(\.joins).map(\.target), last.values.filter { !$0.joins }.map(\.target))
    }

    /// Whether no list has changes waiting.
    var isEmpty: Bool { changes.isEmpty }

    /// The models that changes recorded for `owner` join to its lists: the save inserts those not
    /// in a context yet, as it does the models a loaded relationship holds.
    func joinedTargets(of owner: any PersistentModel) -> [any PersistentModel] {
        changes[ObjectIdentifier(owner)]?.changes.compactMap { $0.joins ? $0.target : nil } ?? []
    }

    /// Drops the changes recorded for `owner`: it saved them, or took its stored state back.
    mutating func removeAll(of owner: any PersistentModel) {
        // A save of many changed models calls this for each: no hash when nothing waits.
        guard !changes.isEmpty else { return }
        changes[ObjectIdentifier(owner)] = nil
    }
}

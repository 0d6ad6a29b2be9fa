import SwiftData
import TodoList

/// What `watch` shows of the list: each item's title and state, by identity, and the lines that
/// say how one snapshot became the next.
struct ListSnapshot: Equatable {
    struct Item: Equatable {
        let id: PersistentIdentifier
        let title: String
        let isComplete: Bool
    }

    /// The items, in the list's order.
    let items: [Item]

    init(_ items: [Item]) { self.items = items }

    @MainActor
    init(_ models: [TodoItem]) {
        items = models.map { Item(id: $0.persistentModelID, title: $0.title, isComplete: $0.isComplete) }
    }

    /// The lines from `old` to this snapshot, in list order: `- title` for each removed item,
    /// then `+ title` for each added one, `~ title (was old title)` for a renamed one, and
    /// `x title` for one done, `o title` for one open again (an item added done gets both `+` and `x`).
    func lines(since old: ListSnapshot) -> [String] {
        let now = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
        let before = Dictionary(uniqueKeysWithValues: old.items.map { ($0.id, $0) })
        var lines = old.items.filter { now[$0.id] == nil }.map { "- \($0.title)" }
        for item in items {
            let was = before[item.id]
            if was == nil { lines.append("+ \(item.title)") }
            if let was, was.title != item.title { lines.append("~ \(item.title) (was \(was.title))") }
            if item.isComplete != (was?.isComplete ?? false) { lines.append("\(item.isComplete ? "x" : "o") \(item.title)") }
        }
        return lines
    }
}

/// Decides which pushed row changes the user may not make, from what the scopes say of the rows
/// involved, with no database: the push planner's scope step.
///
/// A change passes when the user writes its row as the server has it (an update, a delete, a
/// relationship change: any change to a stored row), writes it as the push leaves it (a new row,
/// an update), reads every stored row its relationships name, and writes, as the server has
/// them, the stored rows it links or unlinks (their relationships change too, as inverses: a new
/// membership changes its project's members). The check after the writes runs on the push as a
/// whole, so a new project and the membership that lets its maker write it pass together, while
/// a member who only reads cannot add a membership that makes him a writer.
struct ScopeWriteCheck<Row> {
    /// The row a pushed identifier stands for on the server, if stored (or, after the writes,
    /// made by the push); nil for rows of unscoped entities and rows the server lacks.
    let row: (String) -> Row?
    let reads: (Row) throws -> Bool
    let writes: (Row) throws -> Bool

    /// The changes refused before the writes, by index, judged on the rows as stored. `skip`
    /// lists indexes already refused.
    func before(_ changes: [SyncChange], skip: Set<Int>) throws -> [Int: SyncRejection] {
        var refused: [Int: SyncRejection] = [:]
        for (index, change) in changes.enumerated() where !skip.contains(index) {
            if let stored = row(change.id), try !writes(stored) {
                refused[index] = Self.rejection(change, "the user may not change this \(change.entity) as the server has it")
                continue
            }
            let named = change.fields.values.flatMap { $0.value.referencedIDs + ($0.added ?? []) + ($0.removed ?? []) }
            if let hidden = try named.first(where: { gid in try row(gid).map { try !reads($0) } ?? false }) {
                refused[index] = Self.rejection(change, "it names \(hidden), a row the user may not read")
                continue
            }
            // A to-many links what it added and unlinks what it removed; a to-one, its value.
            let linked = change.fields.values.flatMap { field in
                field.added != nil || field.removed != nil ? (field.added ?? []) + (field.removed ?? []) : field.value.referencedIDs
            }
            if let held = try linked.first(where: { gid in try row(gid).map { try !writes($0) } ?? false }) {
                refused[index] = Self.rejection(change, "it links or unlinks \(held), a row the user may not change as the server has it")
            }
        }
        return refused
    }

    /// The changes refused after the writes, by index, judged on the rows as the push leaves
    /// them: new and changed rows the user may not write.
    func after(_ changes: [SyncChange], skip: Set<Int>) throws -> [Int: SyncRejection] {
        var refused: [Int: SyncRejection] = [:]
        for (index, change) in changes.enumerated() where !skip.contains(index) && !change.deleted {
            if let made = row(change.id), try !writes(made) {
                refused[index] = Self.rejection(change, "the user may not write this \(change.entity) as the push leaves it")
            }
        }
        return refused
    }

    private static func rejection(_ change: SyncChange, _ why: String) -> SyncRejection {
        SyncRejection(entity: change.entity, id: change.id, code: .outOfScope, message: "refused by the server's scopes: \(why)", change: change)
    }
}

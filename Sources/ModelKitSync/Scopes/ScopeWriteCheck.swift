/// Decides which pushed row changes the user may not make, from what the scopes say of the rows
/// involved, with no database: the push planner's scope step.
///
/// A change passes when the user writes its row as the server has it (an update, a delete, a
/// relationship change: any change to a stored row), writes it as the push leaves it (a new row,
/// an update), and reads every stored row its relationships name. The second check runs on the
/// push as a whole, so a new project and the membership that lets its maker write it pass
/// together.
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

/// What the device holds of the rows a page of server rows touches, read before the page is
/// planned: the planner's whole input besides the page.
struct PullSnapshot {
    /// A row the page names, or a row its relationships point at.
    struct Row: Equatable {
        let entity: String
        /// Whether the device deleted it (its delete may still be on the way).
        var deleted: Bool
        /// Its synced fields' values; nil when the model is gone.
        var values: [String: SyncValue]?
        /// Each field's base (what the device last had from the server) and clock.
        var record: FieldRecord
    }

    /// A relationship's pulled value that waits for rows that have not arrived.
    struct Waiting: Equatable {
        let gid: String
        let property: String
        let value: SyncValue
        let clock: String
    }

    var rows: [String: Row] = [:]
    /// Identifiers the server merged into others, old to new, as bases may still name them.
    var aliases: [String: String] = [:]
    /// The fields of the page's rows waiting for rows, by ``key(_:_:)``.
    var waitingFields: Set<String> = []
    /// Waiting values some of whose rows the page brings: tried again.
    var awaited: [Waiting] = []

    static func key(_ gid: String, _ property: String) -> String { gid + "\u{0}" + property }
}

/// A page, decided: rows to make, fields to set, rows to delete, the new bases, and what waits.
struct PullPlan {
    struct Write: Equatable {
        let gid: String
        let entity: String
        var values: [String: SyncValue]
    }

    var creates: [Write] = []
    var updates: [Write] = []
    var deletes: [String] = []
    /// Rows that left the user's scope: removed here and forgotten, not deleted.
    var leaves: [String] = []
    /// Rows the device deleted and the server refused to delete: made again (among
    /// ``creates``) under their identifiers.
    var restored: Set<String> = []
    /// Each written row's field record as it becomes.
    var records: [String: FieldRecord] = [:]
    /// Values that wait, with the rows they wait for.
    var waiting: [(entry: PullSnapshot.Waiting, missing: [String])] = []
    /// Waiting values settled now.
    var settled: [(gid: String, property: String)] = []
    /// Rows whose models change.
    var changed = 0
}

/// Decides a page of server rows (a pull, or a push's answer) against a ``PullSnapshot``, with
/// no database.
///
/// - A field the device changed since its base (an edit not pushed yet, or made while the sync
///   ran) keeps the device's value and its base: the next push is resolved against the server's
///   value by the property's rule. When the page answers a push that sent the field, the base
///   becomes the value sent, which the server has now taken into account.
/// - Other fields take the server's value, which becomes their base; but a row the device made
///   and pushed, whose push is not answered yet (it has no base), keeps its values.
/// - Deletes win: a row deleted on the server goes, edited or not; a row the device deleted
///   stays deleted, unless the server refused the delete.
/// - A row that left the user's scope goes, with what the device changed of it, and is
///   forgotten: it comes back as a new row if the user reads it again.
/// - A relationship to rows that have not arrived sets what it can and waits for the rest; rows
///   the device knows are deleted are not waited for.
struct PullPlanner {
    let schema: SyncSchema

    /// Plans `rows`. `pushed` holds the push they answer, by identifier, renamed as the server
    /// merged them; `rejected`, the identifiers whose pushed changes the server refused.
    func plan(_ rows: [SyncChange], pushed: [String: SyncChange] = [:], rejected: Set<String> = [], snapshot: PullSnapshot) throws -> PullPlan {
        var plan = PullPlan()
        var created = Set<String>()
        var deleted = Set<String>()
        var updated: [(change: SyncChange, row: PullSnapshot.Row)] = []
        for change in rows {
            let entity = try schema.entity(named: change.entity)
            if let row = snapshot.rows[change.id], row.entity != change.entity {
                throw SyncError(.malformedMessage, "the server sent \(change.id), a row of \(row.entity) here, as one of \(change.entity)")
            }
            if change.leftScope {
                guard let row = snapshot.rows[change.id], deleted.insert(change.id).inserted else { continue }
                if !row.deleted && row.values != nil { plan.changed += 1 }
                plan.leaves.append(change.id)
                continue
            }
            if let row = snapshot.rows[change.id] {
                let live = !row.deleted && row.values != nil
                if change.deleted {
                    if live { plan.changed += 1 }
                    if deleted.insert(change.id).inserted { plan.deletes.append(change.id) }
                } else if live, !deleted.contains(change.id) {
                    updated.append((change, row))
                } else if !live, rejected.contains(change.id), pushed[change.id]?.deleted == true, created.insert(change.id).inserted {
                    // The server refused the device's delete: the row comes back as it has it.
                    // (A refused edit of a row deleted here since leaves the delete to go out.)
                    plan.creates.append(PullPlan.Write(gid: change.id, entity: entity.name, values: [:]))
                    plan.restored.insert(change.id)
                    plan.changed += 1
                } else if !live, !row.deleted, !change.deleted {
                    // Deleted here, and the delete is on its way to the server: it wins. The
                    // record stays as it was, and the row counts as seen by a full download, so
                    // that the download's end keeps its identifier for the delete to go out under.
                    plan.records[change.id] = row.record
                }
            } else if !change.deleted, created.insert(change.id).inserted {
                plan.creates.append(PullPlan.Write(gid: change.id, entity: entity.name, values: [:]))
                plan.changed += 1
            }
        }
        func isPresent(_ gid: String) -> Bool {
            created.contains(gid) || (snapshot.rows[gid].map { !$0.deleted && $0.values != nil } ?? false) && !deleted.contains(gid)
        }
        /// Whether the device knows `gid` is gone: deleted here (the delete may be on its way) or
        /// by this page. It will not arrive, so nothing waits for it: a value that names it
        /// drops it. (A field waiting for it waited for good, and was never pushed again.)
        func isGone(_ gid: String) -> Bool { deleted.contains(gid) || isGoneHere(gid) }
        /// Whether the device deleted `gid`, or has no model of it.
        func isGoneHere(_ gid: String) -> Bool { snapshot.rows[gid].map { $0.deleted || $0.values == nil } ?? false }
        func missing(_ value: SyncValue) -> [String] { value.referencedIDs.filter { !isPresent($0) && !isGone($0) } }
        /// Whether `current` is `earlier` but for rows deleted here since: a relationship that
        /// lost a deleted row was not edited.
        func sameButForGone(_ current: SyncValue, _ earlier: SyncValue) -> Bool {
            if current == earlier { return true }
            let earlier = snapshot.aliases.isEmpty ? earlier : earlier.canonicalized { snapshot.aliases[$0] ?? $0 }
            if current == earlier { return true }
            switch earlier {
            case .references(let gids): return current == .references(gids.filter { !isGoneHere($0) })
            case .reference(let gid): return current == .null && isGoneHere(gid)
            default: return false
            }
        }

        let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        for index in plan.creates.indices {
            let gid = plan.creates[index].gid
            let entity = try schema.entity(named: plan.creates[index].entity)
            var record = FieldRecord()
            for (name, pulled) in byID[gid]!.fields where entity.fieldsByName[name] != nil {
                plan.creates[index].values[name] = pulled.value
                let absent = missing(pulled.value)
                if absent.isEmpty {
                    record[name] = .init(base: pulled.value, clock: pulled.clock)
                } else {
                    plan.waiting.append((PullSnapshot.Waiting(gid: gid, property: name, value: pulled.value, clock: pulled.clock), absent))
                }
            }
            plan.records[gid] = record
        }
        for (change, row) in updated {
            let entity = try schema.entity(named: change.entity)
            var record = plan.records[change.id] ?? row.record
            var values: [String: SyncValue] = [:]
            for (name, pulled) in change.fields.sorted(by: { $0.key < $1.key }) {
                guard entity.fieldsByName[name] != nil else { continue }
                let current = row.values![name] ?? .null
                let isWaiting = snapshot.waitingFields.contains(PullSnapshot.key(change.id, name))
                let sent = pushed[change.id]?.fields[name]
                // A field waiting for rows was no local edit when it began to wait, and is not
                // pushed while it waits: the server's value is the one to take.
                let localEdit =
                    if isWaiting {
                        false
                    } else if let sent {
                        !sameButForGone(current, sent.value)
                    } else {
                        // A row with no base at all is the device's own, its push not answered
                        // yet (a full download and its catch-up list the device's rows too):
                        // its values stay until the answer settles them.
                        record[name]?.base.map { !sameButForGone(current, $0) } ?? row.record.entries.isEmpty
                    }
                if localEdit {
                    if let sent, !rejected.contains(change.id), var entry = record[name] {
                        entry.base = sent.value
                        record[name] = entry
                    } else if let sent, !rejected.contains(change.id) {
                        record[name] = .init(base: sent.value, clock: pulled.clock)
                    }
                    continue
                }
                if current != pulled.value { values[name] = pulled.value }
                let absent = missing(pulled.value)
                if absent.isEmpty {
                    record[name] = .init(base: pulled.value, clock: pulled.clock)
                    if isWaiting { plan.settled.append((change.id, name)) }
                } else {
                    plan.waiting.append((PullSnapshot.Waiting(gid: change.id, property: name, value: pulled.value, clock: pulled.clock), absent))
                }
            }
            plan.records[change.id] = record
            if !values.isEmpty {
                plan.updates.append(PullPlan.Write(gid: change.id, entity: entity.name, values: values))
                plan.changed += 1
            }
        }

        // Values that waited for rows this page brings.
        let createAt = Dictionary(plan.creates.indices.map { (plan.creates[$0].gid, $0) }, uniquingKeysWith: { first, _ in first })
        var updateAt = Dictionary(plan.updates.indices.map { (plan.updates[$0].gid, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in snapshot.awaited where byID[entry.gid]?.fields[entry.property] == nil && isPresent(entry.gid) {
            let row = snapshot.rows[entry.gid]
            let entity = row?.entity ?? plan.creates[createAt[entry.gid]!].entity
            guard try schema.entity(named: entity).fieldsByName[entry.property] != nil else { continue }
            let absent = missing(entry.value)
            if let index = createAt[entry.gid] {
                plan.creates[index].values[entry.property] = entry.value
            } else if let index = updateAt[entry.gid] {
                plan.updates[index].values[entry.property] = entry.value
            } else {
                updateAt[entry.gid] = plan.updates.count
                plan.updates.append(PullPlan.Write(gid: entry.gid, entity: entity, values: [entry.property: entry.value]))
            }
            if absent.isEmpty {
                plan.records[entry.gid, default: row?.record ?? FieldRecord()][entry.property] = .init(base: entry.value, clock: entry.clock)
                plan.settled.append((entry.gid, entry.property))
            } else {
                plan.waiting.append((entry, absent))
            }
        }
        return plan
    }
}

/// Decides a push against a ``PushSnapshot``, with no database: which rows it makes, changes,
/// merges, deletes and refuses, and each field's value under the server's rules.
///
/// - A pushed field whose base is the server's value (or a row's first value) is taken. Any
///   other meets a concurrent change, and its property's rule settles it, even when the pushed
///   value equals the server's: two devices adding 2 to 0 under a summing rule make 4.
/// - To-many relationships merge as sets: what the device added and removed since its base is
///   applied to the server's set; rows that are gone drop out, the others stay.
/// - A new row whose unique value a stored row holds is merged into that row: its fields apply
///   to it as edits with no base. A row deleted earlier in the same push holds nothing.
/// - Deletes win: a change of a row that is gone is dropped, and answered with its tombstone.
/// - A change the server cannot store (text with NUL where the store cannot keep it) or that
///   would give a unique value to a second row is refused; the rest of the push goes on.
///
/// The push is one ``PushCheck`` passed: its entities, properties, clocks and kinds of values
/// are the schema's.
struct PushPlanner {
    let schema: SyncSchema
    let policies: SyncPolicies

    /// Plans `changes` against `snapshot`. `refused` holds changes (by index) already known to
    /// fail, refused as given.
    /// - Throws: ``SyncError/Code/schemaMismatch`` for an entity the schema lacks;
    ///   ``SyncError/Code/malformedMessage`` for a clock not in its wire form, a stored row
    ///   pushed as another entity than its own, or a relationship naming a stored row of an
    ///   entity it does not hold.
    func plan(_ changes: [SyncChange], refused: [Int: SyncRejection] = [:], snapshot: PushSnapshot) throws -> PushPlan {
        var state = State(snapshot: snapshot)
        var plan = PushPlan()
        var answered = Set<String>()
        func answer(_ gid: String, _ entity: String) {
            if answered.insert(gid).inserted { plan.answer.append((gid, entity)) }
        }

        // Rows first: what exists, goes or is refused; rows new to the server are taken as
        // present, so that relationships to them hold, and placed once the stored rows' changes
        // have moved the unique values they set.
        var pending: [(index: Int, gid: String, entity: SyncSchema.Entity)] = []
        var fresh: [(index: Int, gid: String, entity: SyncSchema.Entity)] = []
        for (index, change) in changes.enumerated() {
            var entity = try schema.entity(named: change.entity)
            try checkRelated(change, entity, snapshot)
            let gid = state.canonical(change.id)
            if let row = state.rows[gid], row.entity != change.entity {
                // A row merged into a row of another class of its hierarchy (whose unique value
                // it had) is changed as that row; a row of another entity, never.
                guard snapshot.aliases[change.id] != nil, let stored = schema.entities[row.entity], stored.root == entity.root else {
                    throw SyncError(
                        .malformedMessage, "\(change.id) is a row of \(row.entity), pushed as one of \(change.entity); nothing of the push was applied")
                }
                entity = stored
            }
            if let rejection = refused[index] ?? invalidity(of: change, entity, snapshot) {
                plan.rejections.append(rejection)
                answer(gid, change.entity)
                continue
            }
            if let row = state.rows[gid], !state.created.contains(gid) || !change.deleted {
                answer(gid, change.entity)
                guard row.values != nil else {
                    // Gone on the server (or by a cascade): deletes win over edits.
                    if change.deleted { plan.accepted += 1 }
                    continue
                }
                plan.accepted += 1
                if change.deleted {
                    state.delete(gid, entity)
                    plan.deletes.append((gid, change.entity))
                    plan.records[gid] = nil
                } else if state.created.contains(gid) {
                    fresh.append((index, gid, entity))
                } else {
                    if plan.records[gid] == nil { plan.records[gid] = (row.version, row.clocks) }
                    pending.append((index, gid, entity))
                }
            } else if change.deleted {
                // Never stored here: nothing to delete.
                plan.accepted += 1
                answer(gid, change.entity)
            } else {
                state.create(gid, entity)
                plan.accepted += 1
                fresh.append((index, gid, entity))
            }
        }

        // Where each row's write is in the plan, by identifier.
        var createAt: [String: Int] = [:]
        var updateAt: [String: Int] = [:]

        /// Settles the fields `changes[index]` pushes for row `gid`, refusing the change if it
        /// would give the row a unique value another holds.
        func settle(_ index: Int, _ gid: String, _ entity: SyncSchema.Entity, isNew: Bool) throws {
            let change = changes[index]
            var record = plan.records[gid]!.fields
            var resolved: [String: SyncValue] = [:]
            for (name, pushed) in change.fields.sorted(by: { $0.key < $1.key }) {
                guard let field = entity.fieldsByName[name] else { continue }
                let current = state.rows[gid]!.values![name] ?? .null
                let (value, clock) = try resolve(pushed, of: field, in: entity, current: current, clock: record[name]?.clock, state: state, conflicts: &plan.conflicts)
                if value != current || isNew { resolved[name] = value }
                record[name] = .init(base: nil, clock: clock.description)
            }
            if let rejection = state.uniqueConflict(of: gid, entity, setting: resolved, change: change) {
                // The row keeps its values; a new one is not made.
                plan.rejections.append(rejection)
                plan.accepted -= 1
                if isNew, createAt[gid] == nil {
                    plan.records[gid] = nil
                    state.delete(gid, entity)
                }
                return
            }
            state.set(resolved, of: gid, entity)
            plan.records[gid]!.fields = record
            if let at = isNew ? createAt[gid] : updateAt[gid] {
                if isNew { plan.creates[at].values.merge(resolved) { _, new in new } } else { plan.updates[at].values.merge(resolved) { _, new in new } }
            } else if isNew {
                createAt[gid] = plan.creates.count
                plan.creates.append(PushPlan.Create(gid: gid, entity: state.rows[gid]!.entity, values: resolved))
            } else if !resolved.isEmpty {
                updateAt[gid] = plan.updates.count
                plan.updates.append(PushPlan.Update(gid: gid, entity: state.rows[gid]!.entity, values: resolved))
            }
        }

        for (index, gid, entity) in ordered(pending, changes, snapshot: snapshot) { try settle(index, gid, entity, isNew: false) }
        for (index, gid, entity) in fresh {
            let change = changes[index]
            if plan.records[gid] == nil, let owner = state.owner(of: change, entity) {
                // A unique value a stored row holds: the new row is that row.
                state.merge(gid, into: owner)
                plan.merged[change.id] = owner
                answer(owner, state.rows[owner]!.entity)
                let ownerEntity = schema.entities[state.rows[owner]!.entity]!
                if plan.records[owner] == nil { plan.records[owner] = (state.rows[owner]!.version, state.rows[owner]!.clocks) }
                try settle(index, owner, ownerEntity, isNew: state.created.contains(owner))
            } else {
                if plan.records[gid] == nil { plan.records[gid] = (nil, FieldRecord()) }
                answer(gid, change.entity)
                try settle(index, gid, entity, isNew: true)
            }
        }
        return plan
    }

    /// `pending` (changes of stored rows) with each row that gives up a unique value before a
    /// row that takes it, so that neither is refused and the save, which writes changed rows in
    /// the order they first changed, writes them in that order too. Of rows that trade values
    /// round (a swap), one is refused.
    private func ordered(
        _ pending: [(index: Int, gid: String, entity: SyncSchema.Entity)], _ changes: [SyncChange], snapshot: PushSnapshot
    ) -> [(index: Int, gid: String, entity: SyncSchema.Entity)] {
        var moves: [(row: (index: Int, gid: String, entity: SyncSchema.Entity), gives: Set<UniqueValue>, takes: Set<UniqueValue>)] = []
        var others: [(index: Int, gid: String, entity: SyncSchema.Entity)] = []
        for row in pending {
            let fields = changes[row.index].fields
            let before = snapshot.rows[row.gid]?.values ?? [:]
            var gives = Set<UniqueValue>()
            var takes = Set<UniqueValue>()
            for unique in row.entity.uniques where unique.contains(where: { fields[$0] != nil }) {
                gives.insert(UniqueValue(root: row.entity.root, properties: unique, values: unique.map { before[$0] ?? .null }))
                takes.insert(UniqueValue(root: row.entity.root, properties: unique, values: unique.map { fields[$0]?.value ?? before[$0] ?? .null }))
            }
            if gives.isEmpty { others.append(row) } else { moves.append((row, gives, takes)) }
        }
        // Each move after the moves giving up what it takes; a cycle stays in push order.
        var giver: [UniqueValue: Int] = [:]
        for (index, move) in moves.enumerated() { for value in move.gives { giver[value] = index } }
        var placed = [Bool](repeating: false, count: moves.count)
        var visiting = placed
        var result: [(index: Int, gid: String, entity: SyncSchema.Entity)] = []
        func place(_ index: Int) {
            guard !placed[index], !visiting[index] else { return }
            visiting[index] = true
            for value in moves[index].takes { if let other = giver[value], other != index { place(other) } }
            placed[index] = true
            result.append(moves[index].row)
        }
        for index in moves.indices { place(index) }
        return result + others
    }

    /// The value and clock of one pushed field.
    private func resolve(
        _ pushed: SyncField, of field: SyncSchema.Field, in entity: SyncSchema.Entity, current: SyncValue, clock stored: String?, state: State,
        conflicts: inout Int
    ) throws -> (SyncValue, HybridLogicalClock) {
        let serverClock = stored.flatMap(HybridLogicalClock.init) ?? .zero
        guard let incomingClock = HybridLogicalClock(pushed.clock) else {
            throw SyncError(.malformedMessage, "\(entity.name).\(field.name) was pushed with the clock \"\(pushed.clock)\", which is no clock; nothing was applied")
        }
        let incoming = pushed.value.canonicalized(state.canonical)
        switch field.kind {
        case .toMany:
            // The server's set holds live rows; of the rows added, those gone drop out.
            var set = Set(current.referencedIDs)
            if pushed.added == nil, pushed.removed == nil {
                set.formUnion(incoming.referencedIDs.filter(state.isLive))
            } else {
                set.formUnion((pushed.added ?? []).map(state.canonical).filter(state.isLive))
                set.subtract((pushed.removed ?? []).map(state.canonical))
            }
            return (.references(set.sorted()), max(serverClock, incomingClock))
        case .toOne:
            // A to-one to a row that is gone holds nothing, as the delete leaves it.
            let incoming = incoming.referencedIDs.first.map { state.isLive($0) ? incoming : .null } ?? incoming
            return settle(pushed, incoming, current, serverClock, incomingClock, entity, field, state, &conflicts)
        case .attribute:
            return settle(pushed, incoming, current, serverClock, incomingClock, entity, field, state, &conflicts)
        }
    }

    /// A value edit: taken when its base is the server's value, else settled by the rule.
    private func settle(
        _ pushed: SyncField, _ incoming: SyncValue, _ current: SyncValue, _ serverClock: HybridLogicalClock, _ incomingClock: HybridLogicalClock,
        _ entity: SyncSchema.Entity, _ field: SyncSchema.Field, _ state: State, _ conflicts: inout Int
    ) -> (SyncValue, HybridLogicalClock) {
        let base = pushed.base?.canonicalized(state.canonical)
        if base == current || (base == nil && serverClock == .zero) { return (incoming, incomingClock) }
        conflicts += 1
        switch policies.rule(for: field.name, of: entity.lineage) {
        case .lastEditWins:
            return incomingClock > serverClock ? (incoming, incomingClock) : (current, serverClock)
        case .serverWins:
            return (current, serverClock)
        case .custom(let rule):
            // A rule that cannot decode the values leaves the server's.
            return ((try? rule(base, current, incoming)) ?? current, max(serverClock, incomingClock))
        }
    }

    /// Throws for a relationship of `change` naming a stored row (or one merged into it) that
    /// is not of the relationship's entity or a subclass: ``PushCheck`` has checked the rows the
    /// push names itself.
    private func checkRelated(_ change: SyncChange, _ entity: SyncSchema.Entity, _ snapshot: PushSnapshot) throws {
        for (name, pushed) in change.fields.sorted(by: { $0.key < $1.key }) {
            guard let target = entity.fieldsByName[name]?.target else { continue }
            for gid in pushed.mentionedIDs {
                guard let row = snapshot.rows[snapshot.aliases[gid] ?? gid], !schema.entity(named: row.entity, isA: target) else { continue }
                throw SyncError(
                    .malformedMessage,
                    "\(change.entity).\(name) of \(change.id) holds rows of \(target), and \(gid) is a row of \(row.entity); nothing of the push was applied")
            }
        }
    }

    /// Why the server cannot store `change`, if it cannot: text the store cannot keep.
    private func invalidity(of change: SyncChange, _ entity: SyncSchema.Entity, _ snapshot: PushSnapshot) -> SyncRejection? {
        guard !snapshot.textHoldsNUL else { return nil }
        for (name, pushed) in change.fields.sorted(by: { $0.key < $1.key }) {
            if case .text(let text) = pushed.value, text.utf8.contains(0) {
                return SyncRejection(
                    entity: change.entity, id: change.id, code: .invalidValue,
                    message: "\(entity.name).\(name) holds a NUL character, which the server's database cannot store", change: change)
            }
        }
        return nil
    }
}

/// The rows as the plan leaves them, while it is made.
private struct State {
    var rows: [String: PushSnapshot.Row]
    var aliases: [String: String]
    var owners: [UniqueValue: String]
    var created: Set<String> = []

    init(snapshot: PushSnapshot) {
        rows = snapshot.rows
        aliases = snapshot.aliases
        owners = snapshot.owners
    }

    func canonical(_ gid: String) -> String { aliases[gid] ?? gid }

    /// Whether the row is stored or made by the push, and not deleted.
    func isLive(_ gid: String) -> Bool { rows[canonical(gid)]?.values != nil }

    /// The live row other than the change's holding one of the unique values the new row sets.
    func owner(of change: SyncChange, _ entity: SyncSchema.Entity) -> String? {
        for unique in entity.uniques {
            let values = unique.map { change.fields[$0]?.value ?? .null }
            guard !values.contains(.null), let owner = owners[UniqueValue(root: entity.root, properties: unique, values: values)],
                owner != canonical(change.id), isLive(owner)
            else { continue }
            return owner
        }
        return nil
    }

    /// A refusal when `values` would give `gid` a unique value another live row holds.
    func uniqueConflict(of gid: String, _ entity: SyncSchema.Entity, setting values: [String: SyncValue], change: SyncChange) -> SyncRejection? {
        let current = rows[gid]!.values!
        for unique in entity.uniques where unique.contains(where: { values[$0] != nil }) {
            let after = unique.map { values[$0] ?? current[$0] ?? .null }
            guard !after.contains(.null), let owner = owners[UniqueValue(root: entity.root, properties: unique, values: after)], owner != gid,
                isLive(owner)
            else { continue }
            return SyncRejection(
                entity: change.entity, id: change.id, code: .uniqueConflict,
                message: "another \(entity.name) already has \(unique.joined(separator: ", ")) \(after.map(\.debugText).joined(separator: ", "))",
                change: change)
        }
        return nil
    }

    /// Takes a row new to the server as present: its unique values are claimed as its fields
    /// are set.
    mutating func create(_ gid: String, _ entity: SyncSchema.Entity) {
        rows[gid] = PushSnapshot.Row(entity: entity.name, version: 0, values: [:], clocks: FieldRecord())
        created.insert(gid)
    }

    /// Makes a new row the stored row `owner`: identifiers of it stand for the owner.
    mutating func merge(_ gid: String, into owner: String) {
        rows[gid] = nil
        created.remove(gid)
        aliases[gid] = owner
    }

    /// Sets fields of a live row, moving its unique values.
    mutating func set(_ values: [String: SyncValue], of gid: String, _ entity: SyncSchema.Entity) {
        let before = rows[gid]!.values!
        rows[gid]!.values!.merge(values) { _, new in new }
        let after = rows[gid]!.values!
        for unique in entity.uniques {
            let old = unique.map { before[$0] ?? .null }
            let new = unique.map { after[$0] ?? .null }
            if old != new, owners[UniqueValue(root: entity.root, properties: unique, values: old)] == gid {
                owners[UniqueValue(root: entity.root, properties: unique, values: old)] = nil
            }
            if !new.contains(.null) { owners[UniqueValue(root: entity.root, properties: unique, values: new)] = gid }
        }
    }

    mutating func delete(_ gid: String, _ entity: SyncSchema.Entity) {
        let values = rows[gid]?.values ?? [:]
        for unique in entity.uniques {
            let key = UniqueValue(root: entity.root, properties: unique, values: unique.map { values[$0] ?? .null })
            if owners[key] == gid { owners[key] = nil }
        }
        rows[gid]?.values = nil
    }
}

extension SyncValue {
    /// The value as a message shows it.
    var debugText: String {
        switch self {
        case .null: "nil"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): "\"\(value)\""
        case .blob(let value): "\(value.count) bytes"
        case .reference(let gid): gid
        case .references(let gids): "[\(gids.joined(separator: ", "))]"
        }
    }
}

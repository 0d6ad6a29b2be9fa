/// Checks a push against the schema its device runs, before the server reads or writes
/// anything: a push no device of that schema sends is refused whole, with
/// ``SyncError/Code/malformedMessage`` naming the change, and nothing of it applies.
///
/// What needs the store is checked later, by ``PushPlanner``: a stored row pushed as another
/// entity or related where its entity does not fit (refused whole too), text the database
/// cannot hold (that change refused alone, ``SyncRejection/Code/invalidValue``).
struct PushCheck {
    let schema: SyncSchema

    /// - Throws: ``SyncError/Code/malformedMessage`` for an empty push or device identifier, or
    ///   a change that names an unknown entity or property, a clock not in its wire form, a
    ///   value (or base, added, removed) of another kind than its property's, a deletion with
    ///   fields, an identifier that is empty or holds a comma, or a row this push names as
    ///   another entity.
    func check(_ request: SyncPushRequest) throws {
        guard !request.id.isEmpty, !request.envelope.device.isEmpty else {
            throw SyncError(.malformedMessage, "a push needs a push identifier and a device identifier; nothing was applied. Send what SyncClient sends")
        }
        // The entity this push says each row it changes is of.
        var pushed: [String: String] = [:]
        for change in request.changes {
            guard let entity = schema.entities[change.entity] else { throw Self.refusal(change, nil, "\(change.entity) is not a model of this schema") }
            try Self.checkID(change.id, change, nil)
            if let other = pushed.updateValue(change.entity, forKey: change.id), other != change.entity {
                throw Self.refusal(change, nil, "the row is pushed as a \(other) too")
            }
            if change.deleted, !change.fields.isEmpty { throw Self.refusal(change, nil, "a deletion carries no fields") }
            for (name, field) in change.fields.sorted(by: { $0.key < $1.key }) {
                guard let property = entity.fieldsByName[name] else { throw Self.refusal(change, name, "\(name) is not a synced property of \(entity.name)") }
                try check(field, of: property, change)
            }
        }
        // Related rows that the push itself names: of the relationship's entity, or a subclass.
        for change in request.changes {
            for (name, field) in change.fields.sorted(by: { $0.key < $1.key }) {
                guard let target = schema.entities[change.entity]?.fieldsByName[name]?.target else { continue }
                for gid in field.mentionedIDs {
                    if let entity = pushed[gid], !schema.entity(named: entity, isA: target) {
                        throw Self.refusal(change, name, "the relationship holds rows of \(target), and \(gid) is pushed as a row of \(entity)")
                    }
                }
            }
        }
    }

    /// Refuses a clock not as ``HybridLogicalClock/description`` writes it, values that do not
    /// fit `property`, and added or removed rows for anything but a to-many.
    private func check(_ field: SyncField, of property: SyncSchema.Field, _ change: SyncChange) throws {
        guard let clock = HybridLogicalClock(field.clock), clock.description == field.clock, !clock.node.isEmpty else {
            throw Self.refusal(change, property.name, "the clock \"\(field.clock)\" is not in a clock's wire form (millis-counter-node, as HybridLogicalClock writes it)")
        }
        guard Self.fits(field.value, property) else { throw Self.refusal(change, property.name, "the value is of another kind than the property's") }
        if let base = field.base, !Self.fits(base, property) {
            throw Self.refusal(change, property.name, "the base is of another kind than the property's")
        }
        if !property.isToMany, field.added != nil || field.removed != nil {
            throw Self.refusal(change, property.name, "only a to-many lists rows added or removed")
        }
        for gid in field.mentionedIDs { try Self.checkID(gid, change, property.name) }
    }

    /// Whether `value` is of a kind `property` holds: an attribute's values are no rows, a
    /// to-one holds one row or none, a to-many a set of rows.
    private static func fits(_ value: SyncValue, _ property: SyncSchema.Field) -> Bool {
        switch (property.kind, value) {
        case (.attribute, .reference), (.attribute, .references): false
        case (.attribute, _), (.toOne, .reference), (.toOne, .null), (.toMany, .references): true
        case (.toOne, _), (.toMany, _): false
        }
    }

    /// Refuses an identifier that is empty or holds a comma, which a to-many's wire form cannot.
    private static func checkID(_ gid: String, _ change: SyncChange, _ property: String?) throws {
        guard gid.isEmpty || gid.utf8.contains(UInt8(ascii: ",")) else { return }
        throw refusal(change, property, "the identifier \"\(gid)\" is empty or holds a comma, which no row's does")
    }

    private static func refusal(_ change: SyncChange, _ property: String?, _ problem: String) -> SyncError {
        let subject = "\(change.entity) \(change.id)" + (property.map { " (\($0))" } ?? "")
        return SyncError(
            .malformedMessage,
            "a push's change of \(subject): \(problem); nothing of the push was applied. Devices of this schema do not send it: check the client")
    }
}

import ModelKit

/// The versions of its app's models a server syncs with: with a `migrationPlan` on the server's
/// container, devices on the server's version of the plan and on every older one whose
/// differences sync can carry; without one, devices with the server's models only.
///
/// A device on an older version receives rows shaped for it (the properties and models it lacks
/// are left out, renamed properties under its names), and its pushes change only what it has.
/// Versions sync cannot carry are the ones before a `.custom` stage with code of its own (its
/// code may rewrite values, which sync cannot do for the device) or before a stage that changes
/// a synced property's type. A device on one of those, on a version newer than the server's, or
/// on models outside the plan is refused with ``SyncError/Code/schemaMismatch`` before anything
/// moves.
///
/// Check ``unsyncable`` when the server starts, to learn which devices it will refuse:
///
/// ```swift
/// let server = try SyncServer(container: container)
/// for (version, reason) in server.versions.unsyncable { log.warning("devices on \(version) cannot sync: \(reason)") }
/// ```
public struct SyncVersions: Sendable, CustomStringConvertible {
    /// The server's version: the plan's version whose models the server's container has; nil
    /// without a plan (or when its models are no version of the plan).
    public let current: Schema.Version?
    /// The versions devices sync on, oldest first: the server's and the older ones sync can carry.
    public let syncable: [Schema.Version]
    /// The plan's older versions devices cannot sync on, with why, naming the stage.
    public let unsyncable: [Schema.Version: String]

    /// Each version's shape, by its models' schema fingerprint.
    let shapes: [String: DeviceShape]
    /// The shape of a device with the server's models.
    let currentShape: DeviceShape
    /// The fingerprints and versions of the plan's versions newer than the server's.
    let newer: [String: Schema.Version]
    /// The fingerprints and versions of the plan's versions in ``unsyncable``.
    let refused: [String: Schema.Version]

    /// The shape of the syncable version `label` (as ``DeviceShape/label`` writes it).
    func shape(labeled label: String) -> DeviceShape? {
        shapes.values.first { $0.label == label }
    }

    public var description: String {
        guard let current else { return "SyncVersions(no migration plan: devices sync with the server's models only)" }
        let refused = unsyncable.keys.sorted().map { "\($0) (\(unsyncable[$0]!))" }
        return "SyncVersions(server on \(current); syncs \(syncable.map(\.description).joined(separator: ", "))"
            + (refused.isEmpty ? ")" : "; refuses \(refused.joined(separator: ", ")))")
    }

    /// The versions of `container`'s plan, for a server whose synced fields are `schema`'s.
    init(container: ModelContainer, schema: SyncSchema) {
        let versions = container.migrationPlan?.schemas ?? []
        let syncSchemas = versions.map { SyncSchema(Schema(versionedSchema: $0)) }
        guard let plan = container.migrationPlan, let at = syncSchemas.lastIndex(where: { $0.fingerprint == schema.fingerprint }) else {
            currentShape = DeviceShape(current: schema, version: nil)
            (current, syncable, unsyncable, shapes, newer, refused) = (nil, [], [:], [schema.fingerprint: currentShape], [:], [:])
            return
        }
        let identifiers = versions.map { version in version.versionIdentifier }
        let currentShape = DeviceShape(current: schema, version: identifiers[at])
        self.currentShape = currentShape
        current = identifiers[at]
        var newer: [String: Schema.Version] = [:]
        for index in versions.indices where index > at { newer[syncSchemas[index].fingerprint] = identifiers[index] }
        self.newer = newer

        // Going back from the server's version: each older version's fields, as the current
        // names, through each stage's renames; a stage sync cannot carry stops the way back.
        var shapes: [String: DeviceShape] = [schema.fingerprint: currentShape]
        var syncable = [identifiers[at]]
        var unsyncable: [Schema.Version: String] = [:]
        var refused: [String: Schema.Version] = [:]
        // Each field of version `index`, by entity and name, to its current name.
        var toCurrent: [String: [String: String]] = Self.identity(schema)
        var blocked: String?
        for index in stride(from: at - 1, through: 0, by: -1) {
            let (older, newerSchema) = (syncSchemas[index], syncSchemas[index + 1])
            let stage = "\(identifiers[index]) → \(identifiers[index + 1])"
            if blocked == nil, let reason = Self.obstacle(from: versions[index], to: versions[index + 1], in: plan, older, newerSchema) {
                blocked = "the stage \(stage) \(reason)"
            }
            if let blocked {
                unsyncable[identifiers[index]] = blocked
                if shapes[older.fingerprint] == nil { refused[older.fingerprint] = identifiers[index] }
                continue
            }
            var mapped: [String: [String: String]] = [:]
            for entity in older.entities.values {
                guard let next = newerSchema.entities[entity.name], let names = toCurrent[entity.name] else { continue }
                var fields: [String: String] = [:]
                for field in entity.fields {
                    if let successor = Self.successor(of: field.name, in: next), let name = names[successor.name] { fields[field.name] = name }
                }
                mapped[entity.name] = fields
            }
            toCurrent = mapped
            let shape = DeviceShape(device: older, version: identifiers[index], toCurrent: toCurrent, current: schema)
            // Versions whose models sync alike (a changed index) share the newest's shape.
            if shapes[older.fingerprint] == nil { shapes[older.fingerprint] = shape }
            syncable.insert(identifiers[index], at: 0)
        }
        (self.shapes, self.syncable, self.unsyncable, self.refused) = (shapes, syncable, unsyncable, refused)
    }

    /// Each entity's fields of `schema` to themselves.
    private static func identity(_ schema: SyncSchema) -> [String: [String: String]] {
        schema.entities.mapValues { entity in Dictionary(uniqueKeysWithValues: entity.fields.map { ($0.name, $0.name) }) }
    }

    /// The property of `entity` (of the next version) that takes over the field `name`: the one
    /// that names it as its `originalName`, or the one of that name.
    private static func successor(of name: String, in entity: SyncSchema.Entity) -> Schema.Entity.ReplicaProperty? {
        let properties = entity.entity.replicaProperties.filter { !$0.isEphemeral }
        return properties.first { $0.originalName == name && $0.name != name } ?? properties.first { $0.name == name }
    }

    /// Why sync cannot carry the stage from `from` to `to`, if it cannot: code of its own, or a
    /// synced property whose type changes or that stops syncing from its side.
    private static func obstacle(
        from: any VersionedSchema.Type, to: any VersionedSchema.Type, in plan: any SchemaMigrationPlan.Type, _ older: SyncSchema, _ newer: SyncSchema
    ) -> String? {
        for stage in plan.stages {
            guard case .custom(let stageFrom, let stageTo, let will, let did) = stage,
                ObjectIdentifier(stageFrom) == ObjectIdentifier(from), ObjectIdentifier(stageTo) == ObjectIdentifier(to), will != nil || did != nil
            else { continue }
            return "is custom, with code that may rewrite values: devices on \(from.versionIdentifier) would not receive what it changes"
        }
        for entity in older.entities.values.sorted(by: { $0.name < $1.name }) {
            guard let next = newer.entities[entity.name] else { continue }
            let properties = Dictionary(entity.entity.replicaProperties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for field in entity.fields {
                guard let successor = successor(of: field.name, in: next), let property = properties[field.name] else { continue }
                if property.kind != successor.kind || property.storage != successor.storage {
                    return "changes the type of \(entity.name).\(field.name) (\(property.storage) to \(successor.storage))"
                }
                if next.fieldsByName[successor.name] == nil {
                    return "makes \(entity.name).\(successor.name) sync from its inverse's side"
                }
            }
        }
        return nil
    }

    /// The version `text` (`1.2.0`) names, if it names one.
    static func version(_ text: String) -> Schema.Version? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let major = parts[0], let minor = parts[1], let patch = parts[2] else { return nil }
        return Schema.Version(major, minor, patch)
    }

    /// The shape of the device that sent `envelope`.
    /// - Throws: ``SyncError/Code/schemaMismatch`` for a device on a version the server does
    ///   not sync, naming the device's and the server's versions.
    func shape(of envelope: SyncEnvelope) throws -> DeviceShape {
        if let shape = shapes[envelope.schema] { return shape }
        let server = current.map { "\($0) (schema \(currentShape.schema.fingerprint))" } ?? "schema \(currentShape.schema.fingerprint)"
        if let current, let version = newer[envelope.schema] ?? envelope.schemaVersion.flatMap(Self.version), version > current {
            throw SyncError(
                .schemaMismatch,
                "the device is on \(version) and the server on \(server); nothing moved. Update the server to \(version) or later")
        }
        if let current, let version = refused[envelope.schema] ?? envelope.schemaVersion.flatMap(Self.version), let reason = unsyncable[version] {
            throw SyncError(
                .schemaMismatch, "the device is on \(version) and the server on \(current), which cannot sync with it: \(reason); nothing moved. Update the device's app")
        }
        let device = envelope.schemaVersion.map { "\($0) (schema \(envelope.schema))" } ?? "schema \(envelope.schema)"
        if current != nil {
            throw SyncError(
                .schemaMismatch,
                "the device is on \(device), which is no version of the server's migration plan the server on \(server) syncs with; nothing moved. Sync devices on the plan's versions")
        }
        throw SyncError(
            .schemaMismatch,
            "the device's models (\(device)) are not the server's (\(server)); nothing moved. Sync a device and a server with the same model classes")
    }
}

/// A device's version as the server sees it: the device's synced fields and how they map onto
/// the server's, each way. The server's own version maps each field to itself.
struct DeviceShape: Sendable {
    /// The device's plan version; nil without a plan.
    let version: Schema.Version?
    /// The device's synced fields.
    let schema: SyncSchema
    let isCurrent: Bool
    /// Per server entity the device has: server field name to the device's.
    let outgoing: [String: [String: String]]
    /// Per device entity the server has: device field name to the server's.
    let incoming: [String: [String: String]]

    /// The server's own shape.
    init(current: SyncSchema, version: Schema.Version?) {
        self.version = version
        schema = current
        isCurrent = true
        outgoing = current.entities.mapValues { entity in Dictionary(uniqueKeysWithValues: entity.fields.map { ($0.name, $0.name) }) }
        incoming = outgoing
    }

    /// An older version's shape: `toCurrent` maps its fields to the server's, per entity.
    init(device: SyncSchema, version: Schema.Version, toCurrent: [String: [String: String]], current: SyncSchema) {
        self.version = version
        schema = device
        isCurrent = false
        incoming = toCurrent.filter { current.entities[$0.key] != nil }
        outgoing = incoming.mapValues { fields in Dictionary(fields.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first }) }
    }

    /// The version as cursors record it.
    var label: String { version?.description ?? "" }

    /// `change` (the server's) as the device has it: only the fields it has, under its names;
    /// nil for a row of a model it lacks.
    func toDevice(_ change: SyncChange) -> SyncChange? {
        guard !isCurrent else { return change }
        guard let fields = outgoing[change.entity] else { return nil }
        var shaped = change
        shaped.fields = [:]
        for (name, field) in change.fields {
            if let device = fields[name] { shaped.fields[device] = field }
        }
        return shaped
    }

    /// `change` (the device's) as the server has it: its fields under the server's names, those
    /// the server no longer has left out; nil for a row of a model the server no longer has.
    /// - Throws: ``SyncError/Code/malformedMessage`` for an entity or field the device's version
    ///   lacks: no device of that version sends one.
    func toServer(_ change: SyncChange) throws -> SyncChange? {
        guard !isCurrent else { return change }
        guard let entity = schema.entities[change.entity] else {
            throw SyncError(.malformedMessage, "\(change.entity) is not a model of version \(label): no device of that version sends it")
        }
        for name in change.fields.keys where entity.fieldsByName[name] == nil {
            throw SyncError(.malformedMessage, "\(entity.name) has no synced property \(name) in version \(label): no device of that version sends it")
        }
        guard let fields = incoming[change.entity] else { return nil }
        var shaped = change
        shaped.fields = [:]
        for (name, field) in change.fields {
            if let server = fields[name] { shaped.fields[server] = field }
        }
        return shaped
    }

    /// The server entities whose rows a device on `self` has otherwise than one on `older`.
    func entitiesDiffering(from older: DeviceShape) -> Set<String> {
        var names = Set<String>()
        for name in Set(outgoing.keys).union(older.outgoing.keys) {
            let mine = outgoing[name].map { Set($0.keys) }
            let theirs = older.outgoing[name].map { Set($0.keys) }
            if mine != theirs { names.insert(name) }
        }
        return names
    }
}

import Foundation
import ModelKit

/// The keys of the device's state table.
enum ClientState {
    static let device = "device"
    /// The newest local history token whose changes the server has.
    static let pushed = "pushed"
    /// The server's cursor after the last page applied.
    static let cursor = "cursor"
    /// The newest clock reading the device made or saw, as stores of an earlier version kept it.
    static let clock = "clock"
    /// The clock readings the device made or saw, and when (see ``ClockLog``).
    static let clocks = "clocks"
    /// A push sent and not yet answered, to send again as it was.
    static let pending = "pending"
    /// The number of the full download under way, if one is.
    static let download = "download"
    /// How many full downloads the device has begun.
    static let downloads = "downloads"
    /// Refusals of pushed changes that no completed sync has reported yet.
    static let rejections = "rejections"
}

/// A push sent or about to be: the request, and the local history token it covers up to.
struct PreparedPush: Codable, Sendable {
    let request: SyncPushRequest
    let through: Int64
}

/// The device's side of a push: what changed locally since the last one, read from history, and
/// then the server's answer applied.
struct ClientPush {
    let client: SyncClient

    /// How many local transactions one push covers at most.
    static let transactionsPerPush = 512

    /// The push to send: the unanswered one, if the device has one (its answer was lost), or
    /// the changes since the last push, recorded as unanswered before they leave. Nil when
    /// there is nothing to push.
    func prepare(_ envelope: SyncEnvelope) throws -> PreparedPush? {
        let context = ModelContext(client.container)
        if let pending = try context.replicaRead({ try $0.state(ClientState.pending) }) {
            return try SyncJSON.decoder.decode(PreparedPush.self, from: Data(pending.utf8))
        }
        while true {
            let pushed = try context.replicaRead { try $0.state(ClientState.pushed) }.flatMap { Int64($0) } ?? 0
            let from = DefaultHistoryToken(replicaStore: try context.replicaStoreIdentifier(), number: pushed)
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > from })
            descriptor.fetchLimit = UInt64(Self.transactionsPerPush)
            let transactions = try context.fetchHistory(descriptor)
            guard let last = transactions.last?.token.number else { return nil }
            if let prepared = try changes(of: transactions, through: last, envelope: envelope, in: context) { return prepared }
            // Only the device's own pulls since: nothing to push up to there.
            try context.replicaWrite { try $0.setState(ClientState.pushed, String(last)) }
        }
    }

    /// The push of the local changes among `transactions`; the device's own pulls among them
    /// only tell which local writes they replaced.
    private func changes(
        of transactions: [DefaultHistoryTransaction], through last: Int64, envelope: SyncEnvelope, in context: ModelContext
    ) throws -> PreparedPush? {
        // The rows touched, in order: when each was last touched, and each property last changed.
        var touched: [SyncIDs.RowRef: TouchedRow] = [:]
        for transaction in transactions {
            let isSync = transaction.author == SyncClient.author
            for change in transaction.changes {
                let identifier = change.changedPersistentIdentifier
                guard let key = identifier.rowKey, client.schema.entities[identifier.entityName] != nil else { continue }
                let ref = SyncIDs.RowRef(entity: identifier.entityName, key: key)
                if isSync {
                    // A property the sync wrote after a local write holds the server's value (or
                    // a stand-in): the local write is gone here, and nothing of it goes.
                    if case .update(let update) = change, var row = touched[ref] {
                        for name in Self.propertyNames(of: update) { row.propertyTimes[name] = nil }
                        touched[ref] = row
                    }
                    continue
                }
                var row = touched[ref] ?? TouchedRow(order: touched.count)
                row.time = transaction.timestamp
                switch change {
                case .delete: row.deleted = true
                case .insert:
                    row.deleted = false
                    row.propertyTimes = [:]
                case .update(let update):
                    for name in Self.propertyNames(of: update) { row.propertyTimes[name] = transaction.timestamp }
                }
                touched[ref] = row
            }
        }
        guard !touched.isEmpty else { return nil }
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        let values = FieldValues(schema: client.schema, ids: ids)
        // Each edit comes after every clock reading the device saw before it.
        var log = try context.replicaRead { try ClockLog.read(in: $0) }
        var newest = log.newest
        var changes: [SyncChange] = []
        var included = Set<String>()
        let waiting = try context.replicaRead { try WaitingFields.read(in: $0) }

        let ordered = touched.sorted { $0.value.order < $1.value.order }
        var loaded: [SyncIDs.RowRef: any PersistentModel] = [:]
        for (entity, refs) in Dictionary(grouping: ordered.filter { !$0.value.deleted }.map(\.key), by: \.entity) {
            try ids.load(entity: entity, keys: refs.map(\.key))
            for model in try context.models(of: try client.schema.entity(named: entity).entity, keys: refs.map(\.key)) {
                loaded[SyncIDs.RowRef(entity: model.persistentModelID.entityName, key: model._rowKey!)] = model
            }
        }
        // The merges the rows' bases may name, read in batches rather than row by row.
        try ids.loadAliases(of: ids.byGid.values.flatMap { $0.fields.entries.values.flatMap { $0.base?.referencedIDs ?? [] } })
        for (ref, row) in ordered {
            if row.deleted {
                // Deleted before it was ever pushed: the server never had it.
                guard let gid = try ids.gid(entity: ref.entity, key: ref.key, assigning: false), ids.byGid[gid]?.deleted == false else { continue }
                changes.append(SyncChange(entity: ref.entity, id: gid, deleted: true))
                included.insert(gid)
            } else if let model = loaded[ref], let change = try change(of: model, row: row, log: log, newest: &newest, ids: ids, values: values, waiting: waiting) {
                changes.append(change)
                included.insert(change.id)
            }
        }
        // Rows the changes point to that have no identifier yet are new too: they go along.
        var index = 0
        while index < ids.assigned.count {
            let row = ids.assigned[index]
            index += 1
            guard !included.contains(row.gid), let entity = client.schema.entities[row.entity],
                let model = try context.model(of: entity.entity, rowKey: row.key),
                let change = try change(of: model, row: TouchedRow(order: 0), log: log, newest: &newest, ids: ids, values: values, waiting: waiting)
            else { continue }
            changes.append(change)
            included.insert(change.id)
        }
        guard !changes.isEmpty else { return nil }
        let prepared = PreparedPush(
            request: SyncPushRequest(envelope: envelope, id: UUID().uuidString.lowercased(), changes: changes), through: last)
        let json = String(decoding: try SyncJSON.encoder.encode(prepared), as: UTF8.self)
        // Edits after the ones pushed see every reading so far, and come after this push's.
        log.fold(through: transactions.last?.timestamp ?? Date())
        log.record(newest, at: Date())
        try context.replicaWrite { sql in
            try ids.recordAssigned(in: sql)
            try sql.setState(ClientState.pending, json)
            try log.write(in: sql)
        }
        return prepared
    }

    /// The fields of `model` that differ from what the server last gave the device, or that
    /// local saves set since the last push: all of them for a row the server does not have. Nil
    /// when none do.
    private func change(
        of model: any PersistentModel, row: TouchedRow, log: ClockLog, newest: inout HybridLogicalClock, ids: SyncIDs,
        values: FieldValues, waiting: WaitingFields
    ) throws -> SyncChange? {
        let name = model.persistentModelID.entityName
        let entity = try client.schema.entity(named: name)
        guard let gid = try ids.gid(of: model, assigning: true) else { return nil }
        let bases = ids.byGid[gid]?.fields ?? FieldRecord()
        // Read already for the rows touched; only a row that goes along reads its own.
        try ids.loadAliases(of: bases.entries.values.flatMap { $0.base?.referencedIDs ?? [] })
        var fields: [String: SyncField] = [:]
        // A row the server has gave the device a base of each field, but of a property its
        // models gained since (an app update): that one goes only if edited here.
        let isStored = !bases.entries.isEmpty
        for field in entity.fields where !waiting.contains(gid, field.name) {
            if isStored, bases[field.name] == nil, row.propertyTimes[field.name] == nil { continue }
            let value = try values.value(of: model, field, assigning: true)
            let base = bases[field.name]?.base.map(ids.canonical)
            // A field set back to its base since the last push was still written here after
            // edits elsewhere may have been: it goes, and the later write wins.
            guard base != value || base == nil || row.propertyTimes[field.name] != nil else { continue }
            // The edit's time: when the property last changed, or the row if history does not say.
            let time = row.propertyTimes[field.name] ?? row.time
            let clock = log.seen(before: time).tick(at: time, node: client.device)
            newest = max(newest, clock)
            var synced = SyncField(value: value, clock: clock.description, base: base)
            if field.isToMany {
                let now = Set(value.referencedIDs)
                let before = Set(base?.referencedIDs ?? [])
                synced.added = now.subtracting(before).sorted()
                synced.removed = before.subtracting(now).sorted()
            }
            fields[field.name] = synced
        }
        guard !fields.isEmpty else { return nil }
        return SyncChange(entity: name, id: gid, fields: fields)
    }

    /// Applies the server's answer: its merges, its state of each pushed row where the device
    /// has not changed the row since, and the new bases; then the push is no longer pending.
    func finish(_ prepared: PreparedPush, _ response: SyncPushResponse) throws {
        let pushed = Dictionary(prepared.request.changes.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let rejected = Set(response.rejections.map(\.id))
        try ClientApply(client: client).apply(response.rows, merged: response.merged, pushed: pushed, rejected: rejected) { sql in
            try sql.setState(ClientState.pushed, String(prepared.through))
            try sql.setState(ClientState.pending, nil)
            if !response.rejections.isEmpty { try Self.record(response.rejections, in: sql) }
        }
    }

    /// Keeps refusals until a sync that completes reports them: one that fails after its push
    /// was answered loses none.
    static func record(_ rejections: [SyncRejection], in sql: StoreSQL) throws {
        let kept = try unreported(in: sql)
        try sql.setState(ClientState.rejections, String(decoding: try SyncJSON.encoder.encode(kept + rejections), as: UTF8.self))
    }

    /// The refusals no completed sync has reported yet.
    static func unreported(in sql: StoreSQL) throws -> [SyncRejection] {
        guard let json = try sql.state(ClientState.rejections) else { return [] }
        return try SyncJSON.decoder.decode([SyncRejection].self, from: Data(json.utf8))
    }
}

/// A row as the history since the last push touched it.
struct TouchedRow {
    /// Its place among the rows touched.
    let order: Int
    /// When it was last touched; now for a row that goes along with another.
    var time = Date()
    var deleted = false
    /// When each property last changed, by name, as updates list them.
    var propertyTimes: [String: Date] = [:]
}

extension ClientPush {
    /// The names of the properties `update` lists as changed.
    static func propertyNames<Update: HistoryUpdate>(of update: Update) -> [String] {
        update.updatedAttributes.compactMap { keyPath in Update.Model.schemaMetadata.first { $0.keyPath == keyPath as AnyKeyPath }?.name }
    }
}

/// The fields whose pulled value waits for rows that have not arrived, by row and property.
struct WaitingFields {
    private var pairs: Set<String> = []

    static func read(in sql: StoreSQL) throws -> WaitingFields {
        WaitingFields(rows: try sql.rows(SyncTables.selectWaiting))
    }

    /// The fields of rows of ``SyncTables/selectWaiting``.
    init(rows: [[SQLValue]]) {
        for row in rows {
            if case .text(let gid) = row[0], case .text(let property) = row[1] { pairs.insert(gid + "\u{0}" + property) }
        }
    }

    func contains(_ gid: String, _ property: String) -> Bool { pairs.contains(gid + "\u{0}" + property) }
}

import Foundation
import ModelKit

/// The global identifiers of rows, read from and recorded in ``SyncTables/ids`` during one
/// request, with what was read kept for the rest of it.
final class SyncIDs {
    struct Row {
        let gid: String
        let entity: String
        let key: Int64
        var version: Int64
        var deleted: Bool
        /// What sync keeps of its fields.
        var fields = FieldRecord()
    }

    private let sql: (String, [SQLValue]) throws -> [[SQLValue]]
    private(set) var byGid: [String: Row] = [:]
    private var byRow: [RowRef: String] = [:]
    /// Rows given an identifier during this request, to record with its writes.
    private(set) var assigned: [Row] = []

    struct RowRef: Hashable {
        let entity: String
        let key: Int64
    }

    /// Identifiers read through `sql`: a query and its values, returning rows.
    init(sql: @escaping (String, [SQLValue]) throws -> [[SQLValue]]) {
        self.sql = sql
    }

    /// Reads the rows of `gids` not read yet.
    func load(gids: some Sequence<String>) throws {
        let missing = Array(Set(gids.filter { byGid[$0] == nil }))
        for chunk in missing.chunked(500) {
            for row in try sql(SyncTables.selectIDs(count: chunk.count), chunk.map { .text($0) }) { remember(try Self.row(row)) }
        }
    }

    /// Reads the identifiers of `keys` of `entity` not read yet; the keys found to have none
    /// are remembered too, so that a row's identifier is looked for once a request.
    func load(entity: String, keys: some Sequence<Int64>) throws {
        let missing = Array(Set(keys.map { RowRef(entity: entity, key: $0) }.filter { byRow[$0] == nil && !unnamed.contains($0) }.map(\.key)))
        for chunk in missing.chunked(500) {
            for row in try sql(SyncTables.selectIDsOfRows(count: chunk.count), [.text(entity)] + chunk.map { .integer($0) }) {
                remember(try Self.row(row))
            }
        }
        for key in missing where byRow[RowRef(entity: entity, key: key)] == nil { unnamed.insert(RowRef(entity: entity, key: key)) }
    }

    /// Rows read and found to have no identifier.
    private var unnamed: Set<RowRef> = []

    /// The identifier of `entity`'s row `key`, reading it if needed; with `assigning`, a new
    /// one if the row has none.
    func gid(entity: String, key: Int64, assigning: Bool) throws -> String? {
        let ref = RowRef(entity: entity, key: key)
        if byRow[ref] == nil { try load(entity: entity, keys: [key]) }
        if let gid = byRow[ref] { return gid }
        guard assigning else { return nil }
        let row = Row(gid: UUID().uuidString.lowercased(), entity: entity, key: key, version: 0, deleted: false)
        remember(row)
        assigned.append(row)
        return row.gid
    }

    /// Identifiers of models made during the request and not saved yet.
    private var unsaved: [ObjectIdentifier: String] = [:]

    /// Identifiers merged into others, read by ``loadAliases(of:)``: old to new.
    private(set) var aliases: [String: String] = [:]
    private var aliasesRead: Set<String> = []

    /// Reads which of `gids` the server merged into other rows.
    func loadAliases(of gids: some Sequence<String>) throws {
        let unknown = Array(Set(gids.filter { !aliasesRead.contains($0) }))
        aliasesRead.formUnion(unknown)
        for chunk in unknown.chunked(500) {
            for row in try sql(SyncTables.selectMerged(count: chunk.count), chunk.map { .text($0) }) {
                if case .text(let gid) = row[0], case .text(let target) = row[1] { aliases[gid] = target }
            }
        }
    }

    /// `value` with identifiers merged into others replaced by theirs.
    func canonical(_ value: SyncValue) -> SyncValue {
        aliases.isEmpty ? value : value.canonicalized { self.aliases[$0] ?? $0 }
    }

    /// Names a model made during the request, before it is saved.
    func name(_ model: any PersistentModel, _ gid: String) {
        unsaved[ObjectIdentifier(model)] = gid
    }

    /// The identifier of `model`'s row: a saved one's, or one ``name(_:_:)`` gave.
    func gid(of model: any PersistentModel, assigning: Bool) throws -> String? {
        guard let key = model._rowKey else { return unsaved[ObjectIdentifier(model)] }
        return try gid(entity: model.persistentModelID.entityName, key: key, assigning: assigning)
    }

    private func remember(_ row: Row) {
        byGid[row.gid] = row
        byRow[RowRef(entity: row.entity, key: row.key)] = row.gid
    }

    func markDeleted(_ gid: String) {
        byGid[gid]?.deleted = true
    }

    /// Records the identifiers assigned during the request, in `sql`'s transaction.
    func recordAssigned(in sql: StoreSQL) throws {
        for row in assigned {
            try sql.run(SyncTables.insertID, [.text(row.gid), .text(row.entity), .integer(row.key), .integer(0), .null])
        }
        assigned = []
    }

    /// A row of ``SyncTables/selectIDs(count:)``.
    private static func row(_ columns: [SQLValue]) throws -> Row {
        guard case .text(let gid) = columns[0], case .text(let entity) = columns[1], case .integer(let key) = columns[2] else {
            throw SyncError(.malformedMessage, "the sync identifier table holds a malformed row")
        }
        let version: Int64 = if case .integer(let value) = columns[3] { value } else { 0 }
        let deleted: Bool = if case .integer(let value) = columns[4] { value != 0 } else { false }
        return Row(gid: gid, entity: entity, key: key, version: version, deleted: deleted, fields: try FieldRecord(columns[5]))
    }
}

extension SyncSchema.Entity {
    /// The stored models of `rows` (of this entity, not deleted), by row key. A row read
    /// through its entity may be of a subclass: only rows of this very entity count.
    func models(of rows: [SyncIDs.Row], in context: ModelContext) throws -> [Int64: any PersistentModel] {
        var found: [Int64: any PersistentModel] = [:]
        for model in try context.models(of: entity, keys: rows.filter { !$0.deleted }.map(\.key)) where model.persistentModelID.entityName == name {
            found[model._rowKey!] = model
        }
        return found
    }

    /// The stored models holding `tuples` of the unique constraint `unique` (property names):
    /// in a class hierarchy, rows of any class of the entity's table. A one-property constraint
    /// is read in batches; a compound one, a query per tuple.
    func models(holding tuples: [[SyncValue]], of unique: [String], in context: ModelContext) throws -> [any PersistentModel] {
        let indexes = unique.map { fieldsByName[$0]!.index }
        guard indexes.count > 1 else {
            return try tuples.map { $0[0].sqlValue }.chunked(500).flatMap { try context.models(of: entity, holdingAny: $0, at: indexes[0]) }
        }
        return try tuples.flatMap { tuple in
            try context.models(of: entity, holding: zip(indexes, tuple).map { (index: $0.0, value: $0.1.sqlValue) })
        }
    }
}

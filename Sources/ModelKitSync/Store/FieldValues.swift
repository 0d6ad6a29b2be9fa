import Foundation
import ModelKit

/// A model's synced fields as wire values, and wire values written back into models.
struct FieldValues {
    let schema: SyncSchema
    let ids: SyncIDs

    /// Every synced field of `model`. Related rows without an identifier get one with
    /// `assigning` (they were never synced), and are left out otherwise.
    func values(of model: any PersistentModel, _ entity: SyncSchema.Entity, assigning: Bool) throws -> [String: SyncValue] {
        var values: [String: SyncValue] = [:]
        for field in entity.fields {
            values[field.name] = try value(of: model, field, assigning: assigning)
        }
        return values
    }

    func value(of model: any PersistentModel, _ field: SyncSchema.Field, assigning: Bool) throws -> SyncValue {
        switch field.kind {
        case .attribute:
            return SyncValue(try model._modelKitValue(at: field.index))
        case .toOne:
            guard let target = model._modelKitModels(at: field.index).first else { return .null }
            return try ids.gid(of: target, assigning: assigning).map(SyncValue.reference) ?? .null
        case .toMany:
            let gids = try model._modelKitModels(at: field.index).compactMap { try ids.gid(of: $0, assigning: assigning) }
            return .references(gids.sorted())
        }
    }

    /// Writes `value` into `model`'s field through its setter, if it differs from the model's.
    /// `resolve` finds the model of a related row's identifier. Rows it cannot find are left
    /// out (a to-one keeps its value) and returned, so that the rest of a to-many still applies.
    /// - Throws: ``SyncError/Code/malformedMessage`` when an identifier names a row of another
    ///   entity than the relationship's.
    @discardableResult
    func assign(
        _ value: SyncValue, to model: any PersistentModel, _ field: SyncSchema.Field, in entity: SyncSchema.Entity,
        resolve: (String) throws -> (any PersistentModel)?
    ) throws -> [String] {
        switch field.kind {
        case .attribute:
            if SyncValue(try model._modelKitValue(at: field.index)) != value {
                try entity.entity.assign(value.sqlValue, at: field.index, to: model)
            }
        case .toOne:
            let current = model._modelKitModels(at: field.index).first
            guard case .reference(let gid) = value else {
                if current != nil { model._modelKitSet([], at: field.index) }
                return []
            }
            guard let target = try resolve(gid) else { return [gid] }
            try check(target, gid, in: field, of: entity)
            if current !== target { model._modelKitSet([target], at: field.index) }
        case .toMany:
            guard case .references(let gids) = value else { return [] }
            var targets: [any PersistentModel] = []
            var missing: [String] = []
            for gid in gids {
                guard let target = try resolve(gid) else {
                    missing.append(gid)
                    continue
                }
                try check(target, gid, in: field, of: entity)
                targets.append(target)
            }
            let current = model._modelKitModels(at: field.index)
            let same = current.count == targets.count && Set(current.map(ObjectIdentifier.init)) == Set(targets.map(ObjectIdentifier.init))
            if !same { model._modelKitSet(targets, at: field.index) }
            return missing
        }
        return []
    }

    /// Refuses `target`, the row of `gid`, for `field` unless it is of the field's target
    /// entity or a subclass of it: the model's setter could not hold it.
    private func check(_ target: any PersistentModel, _ gid: String, in field: SyncSchema.Field, of entity: SyncSchema.Entity) throws {
        let name = target.persistentModelID.entityName
        guard let wanted = field.target, !schema.entity(named: name, isA: wanted) else { return }
        throw SyncError(.malformedMessage, "\(entity.name).\(field.name) holds rows of \(wanted), and \(gid) is a row of \(name)")
    }
}

enum SyncJSON {
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    static func text(_ value: SyncValue) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func value(_ text: String) throws -> SyncValue {
        try decoder.decode(SyncValue.self, from: Data(text.utf8))
    }
}

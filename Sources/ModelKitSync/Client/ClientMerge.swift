import ModelKit

/// The server's merges applied on the device: a pushed row the server found to be another row
/// (a unique value it already held) takes that row's identifier. When the device already has
/// that row too (another device gave it the value, and this device has not heard yet), the two
/// are folded into one: what the pushed row's relationships held moves to the other, and the
/// pushed row goes (with it, when the device deleted the other). Run before the answer that
/// names the merged rows is applied.
struct ClientMerge {
    let client: SyncClient

    /// Renames or folds the rows `merged` names; returns the pushed identifiers folded.
    @discardableResult
    func apply(_ merged: [String: String]) throws -> Set<String> {
        guard !merged.isEmpty else { return [] }
        let context = ModelContext(client.container)
        context.autosaveEnabled = false
        context.author = SyncClient.author
        let ids = SyncIDs { sql, values in try context.replicaRead { try $0.rows(sql, values) } }
        try ids.load(gids: Array(merged.keys) + Array(merged.values))
        var renamed: [(old: String, new: String)] = []
        var folded: [String] = []
        // The pushed row renamed to each identifier the device did not have: another pushed row
        // merged into the same one folds into it (renamed too, the two would share one name).
        var renamedInto: [String: String] = [:]
        for (old, new) in merged.sorted(by: { $0.key < $1.key }) {
            guard let row = ids.byGid[old] else { continue }
            guard let target = ids.byGid[new] ?? renamedInto[new].flatMap({ ids.byGid[$0] }) else {
                renamed.append((old, new))
                renamedInto[new] = old
                continue
            }
            folded.append(old)
            guard !row.deleted, let entity = client.schema.entities[row.entity], let from = try context.model(of: entity.entity, rowKey: row.key)
            else { continue }
            // The device deleted the row its pushed row became (the delete is on its way): the
            // pushed row is that row, and goes too.
            guard !target.deleted, row.entity == target.entity, let into = try context.model(of: entity.entity, rowKey: target.key) else {
                context.delete(from)
                continue
            }
            for property in entity.entity.replicaProperties where property.kind != .attribute {
                let moving = from._modelKitModels(at: property.index)
                guard !moving.isEmpty else { continue }
                let current = into._modelKitModels(at: property.index)
                if case .toMany = property.kind {
                    let known = Set(current.map(ObjectIdentifier.init))
                    into._modelKitSet(current + moving.filter { !known.contains(ObjectIdentifier($0)) }, at: property.index)
                } else if current.isEmpty {
                    into._modelKitSet(moving, at: property.index)
                }
                from._modelKitSet([], at: property.index)
            }
            context.delete(from)
        }
        try context.save { sql, _ in
            for (old, new) in renamed { try sql.run(SyncTables.renameID, [.text(new), .text(old)]) }
            for old in folded { try sql.run(SyncTables.deleteID, [.text(old)]) }
            // Bases of other rows may still name the old identifiers: they stand for the new.
            for (old, new) in merged { try sql.run(SyncTables.insertMerged, [.text(old), .text(new)]) }
        }
        return Set(folded)
    }
}

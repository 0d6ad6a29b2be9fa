import Foundation

extension ModelContext {
    /// Whether other contexts or processes committed since the context last merged: rows read now
    /// may be newer than the registered models.
    var isBehindStore: Bool {
        links.contains { $0.isBehind }
    }

    /// Applies what others committed since the last read. Registered models without unsaved
    /// changes take the stored values, in place; those whose rows were deleted are marked deleted
    /// and leave the context. Models with unsaved changes keep them, and only their other
    /// properties follow the store. Commits by other processes are noticed after a read (see
    /// ``noticeCommitsSeenByReader()``); their changed rows are unknown, so every registered model
    /// is read again.
    func mergeChanges() {
        for link in links { mergeChanges(of: link) }
    }

    private func mergeChanges(of link: StoreLink) {
        let generation = link.store.access.generation.load(ordering: .sequentiallyConsistent)
        if link.inbox.hasChanges {
            do {
                try apply(link.inbox.drain(), to: link)
            } catch {
                ModelKitDebugLog.error("could not merge changes saved elsewhere into a context: \(error)")
            }
        }
        link.mergedGeneration = generation
    }

    /// Called after each read: when the read saw the database changed, asks the store whether
    /// another process committed, and merges at once if so, so the models just read are current.
    /// The reader's data version moves with every commit, the process's own included; only the
    /// writer's tells other processes apart, so the store checks that (and only then).
    func noticeCommitsSeenByReader(of link: StoreLink) {
        let access = link.store.access
        guard access.noticesOtherProcesses, let version = link.reader?.changeCounter else { return }
        guard version != link.readerDataVersion, access.noticeExternalCommits() else { return }
        link.readerDataVersion = version
        if link.inbox.hasChanges { mergeChanges(of: link) }
    }

    /// Applies the changes `link`'s store announced: only to the entities that store holds (a
    /// change names entities by name, and another container on the store may have others).
    private func apply(_ changes: [StoreChange], to link: StoreLink) throws {
        func entity(named name: String) -> Schema.Entity? {
            guard let entity = container.schema.entity(named: name), self.link(for: entity) === link else { return nil }
            return entity
        }
        if changes.contains(where: \.isExternal) {
            try refresh(registered.allKeys.filter { links[container.storeIndex(of: $0.entity)] === link })
            return
        }
        var stale: [RowKey] = []
        for change in changes {
            for (name, keys) in change.updated.merging(change.inserted, uniquingKeysWith: +) {
                guard let entity = entity(named: name) else { continue }
                stale += keys.map { RowKey(entity: entity, rowID: $0) }
            }
            for (name, keys) in change.deleted {
                guard let entity = entity(named: name) else { continue }
                for key in keys {
                    if let model = registered[RowKey(entity: entity, rowID: key)] as? any PersistentModel {
                        forgetDeletedElsewhere(model)
                    }
                }
            }
        }
        try refresh(stale)
    }

    /// Reads the rows of the registered models under `keys` again, 500 at a time. A model whose
    /// row is gone was deleted elsewhere.
    func refresh(_ keys: [RowKey]) throws {
        let entities = Dictionary(uniqueKeysWithValues: container.schema.entities.map { (ObjectIdentifier($0), $0) })
        let byEntity = Dictionary(grouping: keys.filter { registered[$0] != nil }, by: \.entity)
        for (id, keys) in byEntity {
            guard let entity = entities[id] else { continue }
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                let sql = SQL(
                    text: RelationshipSQL.rows(of: entity, keys: chunk.count), bindings: chunk.map { .integer($0.rowID) })
                var found = Set<Int64>()
                try run(on: entity) {
                    try reader(for: entity).select(sql, through: { ModelRow(statement: $0, entity: entity, context: self) }) { row in
                        found.insert(row.primaryKey)
                        if let model = registered[RowKey(entity: entity, rowID: row.primaryKey)] as? any PersistentModel {
                            try refresh(model, from: row)
                        }
                    }
                }
                for key in chunk where !found.contains(key.rowID) {
                    if let model = registered[key] as? any PersistentModel { forgetDeletedElsewhere(model) }
                }
            }
        }
    }

    /// Marks a model whose row another context or process deleted as deleted, and drops it from
    /// the context, unless it has unsaved changes: those stay, and saving them reports the
    /// conflict.
    func forgetDeletedElsewhere(_ model: any PersistentModel) {
        guard model._$modelKit.changedColumns.isEmpty, !deleted.contains(model) else { return }
        detach(deletedRowOf: model)
    }

    /// Takes a model whose row is gone out of the context: out of the registry and the pending
    /// changes, marked deleted.
    func detach(deletedRowOf model: any PersistentModel) {
        let storage = model._$modelKit
        if let rowID = storage.rowID, let entity = storage.entity {
            registered.removeValue(forKey: RowKey(entity: entity, rowID: rowID))
        }
        changed.remove(model)
        deleted.remove(model)
        storage.isDeleted = true
        storage.leaveContext()
    }
}

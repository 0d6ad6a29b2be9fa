import Foundation

extension ModelContext {
    /// Posted before a context saves. The object is the context.
    public static let willSave = Notification.Name("ModelKit.ModelContext.willSave")
    /// Posted after a context saves. The object is the context; the user info holds the
    /// identifiers of what was saved, under ``NotificationKey`` raw values.
    public static let didSave = Notification.Name("ModelKit.ModelContext.didSave")

    /// The keys of ``didSave``'s user info, as in SwiftData.
    public enum NotificationKey: String, Sendable {
        /// The models the save inserted: a `[PersistentIdentifier]`.
        case insertedIdentifiers
        /// The models the save changed: a `[PersistentIdentifier]`.
        case updatedIdentifiers
        /// The models the save deleted: a `[PersistentIdentifier]`.
        case deletedIdentifiers
        /// Core Data's key for every model being invalidated at once. ModelKit never invalidates
        /// a context's models wholesale (a context refetches what other saves change), so no
        /// notification carries it.
        case invalidatedAllIdentifiers
        /// Core Data's key for a context's query generation. ModelKit's contexts read the newest
        /// committed state rather than a pinned generation, so no notification carries it.
        case queryGeneration
        /// The history token of the save's transaction (a ``DefaultHistoryToken``), to fetch
        /// only what came after it. In a save that spans several stores, the last store's.
        case historyTokens
    }

    /// Writes every unsaved insert, change and delete to the store, in one transaction that writes
    /// only the changed columns.
    ///
    /// Saves of every context on a SQLite store take turns at the store's one writer; on
    /// PostgreSQL they run at once, each on the connection its context reads through. When the save
    /// commits, every other context of the process merges it before its next read (the main
    /// context right away, on the main actor). Two contexts that change the same row: the last to
    /// save wins, property by property.
    ///
    /// A model inserted with an `@Attribute(.unique)` value that is already stored updates the
    /// stored row and takes its identity. If the save fails, the store is as it was before and the
    /// context keeps its unsaved changes.
    ///
    /// In a container with several stores, each store's changes commit in a transaction of their
    /// own, store by store in the container's order. If one store's save fails, the stores before
    /// it keep what they committed (``didSave`` reports it), and the context keeps the changes of
    /// that store and those after it, to save again.
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` when the container does not allow saves;
    ///   ``ModelKitError/saveConflict(entity:identifiers:)`` when a changed or deleted model's row
    ///   was deleted elsewhere; ``ModelKitError/storeLocked(_:)`` when another process holds the
    ///   store; ``ModelKitError/database(_:)`` when the database refuses a write or fails.
    public func save() throws {
        try save(inOneTransaction: false)
    }

    /// Saves; with `inOneTransaction`, throws before writing anything when the changes span
    /// several stores, which cannot commit together.
    /// `attachment`, if given, runs in the transaction after the model writes (see
    /// ``save(attaching:)``).
    func save(inOneTransaction: Bool, attaching attachment: ((StoreSQL, InsertedRowKeys) throws -> Void)? = nil) throws {
        guard hasChanges else { return }
        registered.sweepIfGrown()
        let stores = pendingBatches().map(\.link.store)
        if let readOnly = stores.first(where: { !$0.allowsSave }) { throw ModelKitError.saveNotAllowed(readOnly.url) }
        if inOneTransaction, stores.count > 1 {
            throw ModelKitError.invalidConfiguration(
                stores[1].url.lastPathComponent,
                reason: "a transaction commits in one store, and its changes are in \(stores.map(\.url.lastPathComponent).joined(separator: " and ")); "
                    + "make each store's changes in a transaction of their own")
        }
        try prepareRelationshipsForSave()
        NotificationGate.shared.post(name: Self.willSave, object: self)
        var batches = pendingBatches()

        var saved = SaveBatch.Identifiers()
        var token: DefaultHistoryToken?
        defer {
            if !saved.isEmpty { postDidSave(inserted: saved.inserted, updated: saved.updated, deleted: saved.deleted, token: token) }
        }
        for index in batches.indices {
            let store = batches[index].link.store
            if let value = try writeRetrying(batches[index], attaching: attachment) { token = DefaultHistoryToken(storeIdentifier: store.identifier, value: value) }
            saved.append(finish(&batches[index], all: batches.count == 1))
        }
    }

    /// The unsaved changes, one batch per store that has some (one batch, maybe empty, when the
    /// container has one store).
    private func pendingBatches() -> [SaveBatch] {
        guard links.count > 1 else {
            return [SaveBatch(link: links[0], inserted: inserted.models, changed: changed.models, deleted: deleted.models)]
        }
        var batches = links.map { SaveBatch(link: $0, inserted: [], changed: [], deleted: []) }
        func index(of model: any PersistentModel) -> Int { container.storeIndex(of: model._$modelKit.entity!) }
        for model in inserted.models { batches[index(of: model)].inserted.append(model) }
        for model in changed.models { batches[index(of: model)].changed.append(model) }
        for model in deleted.models { batches[index(of: model)].deleted.append(model) }
        return batches.filter { !$0.isEmpty }
    }

    /// Writes one store's batch, again when the database ended the transaction for a concurrent
    /// one (a deadlock between saves that lock the same rows in different orders): the failed
    /// attempt wrote nothing, and the models are as before it. Each retry waits a few
    /// milliseconds first (more each time, with jitter): the transaction that won needs a moment
    /// to take the rows the failed one let go, and a retry at once can take them first and meet
    /// the same deadlock again.
    private func writeRetrying(_ batch: SaveBatch, attaching attachment: ((StoreSQL, InsertedRowKeys) throws -> Void)?) throws -> Int64? {
        var attempt = 1
        while true {
            do {
                return try write(batch, attaching: attachment)
            } catch ModelKitError.database(let failure) where failure.isTransactionRetryable && attempt < Self.saveAttempts {
                Thread.sleep(forTimeInterval: 0.02 * Double(attempt) * Double.random(in: 0.5...1))
                attempt += 1
            }
        }
    }

    /// How many times a save is tried when the database ends it for a concurrent one.
    static let saveAttempts = 3

    /// Writes one store's batch in one transaction, then gives its inserted models their keys,
    /// and returns its history token. If it fails, the store is as it was and the batch's models
    /// are untouched: nothing of the context runs inside the store's transaction.
    private func write(_ batch: SaveBatch, attaching attachment: ((StoreSQL, InsertedRowKeys) throws -> Void)?) throws -> Int64? {
        if batch.link.store.custom != nil, let index = links.firstIndex(where: { $0 === batch.link }), let custom = customStore(at: index) {
            try writeCustom(batch, to: custom)
            return nil
        }
        var plan = try savePlan(for: batch)
        let inserted = batch.inserted
        if let attachment {
            plan.attachment = { sql, keys in try attachment(sql, InsertedRowKeys(models: inserted, keys: keys)) }
        }
        let outcome = try batch.link.store.save(plan, in: session(of: batch.link))
        for (model, key) in zip(inserted, outcome.insertedKeys) { model._$modelKit.rowID = key }
        return outcome.token
    }

    /// Once a batch committed: its models take their new identities and leave the pending
    /// changes (all of them, when `all`, the one batch of a one-store container). Returns the
    /// identifiers saved.
    ///
    /// The inserted models' array leaves the batch, and the pending inserts go first: registering
    /// the models grows the identity map while the array is the only other list of them, and their
    /// identifiers are made once it is gone, from their keys (a million models' save peaks 16 MB
    /// lower than with the pending set, the array and the identifiers alive together).
    private func finish(_ batch: inout SaveBatch, all: Bool) -> SaveBatch.Identifiers {
        let deletedIDs = batch.deleted.filter { $0._$modelKit.rowID != nil }.map(\.persistentModelID)
        var models: [any PersistentModel] = []
        swap(&models, &batch.inserted)
        if all { inserted.removeAll() } else { inserted.remove(models) }
        let insertedKeys = register(models, in: batch.link)
        models = []
        // One pass over the changed models, which may be many: each is visited once, in memory.
        var updatedIDs: [PersistentIdentifier] = []
        updatedIDs.reserveCapacity(batch.changed.count)
        for model in batch.changed {
            updatedIDs.append(model.persistentModelID)
            model._$modelKit.changedColumns.removeAll()
            deferredListChanges.removeAll(of: model)
        }
        for model in batch.deleted {
            deferredListChanges.removeAll(of: model)
            if model._$modelKit.rowID != nil {
                registered.removeValue(forKey: RowKey(model))
            }
            model._$modelKit.leaveContext()
        }
        if all {
            changed.removeAll()
            deleted.removeAll()
        } else {
            changed.remove(batch.changed)
            deleted.remove(batch.deleted)
        }
        return SaveBatch.Identifiers(inserted: insertedKeys.identifiers, updated: updatedIDs, deleted: deletedIDs)
    }

    /// Registers newly saved models under their rows, in `link`'s store, and returns their keys.
    private func register(_ models: [any PersistentModel], in link: StoreLink) -> SavedKeys {
        var keys = SavedKeys(capacity: models.count)
        reserveRegistrations(for: models)
        for model in models {
            let storage = model._$modelKit
            storage.enter(link.handle)
            storage.isInserted = false
            storage.changedColumns.removeAll()
            guard let entity = storage.entity, let rowID = storage.rowID else {
                preconditionFailure("an inserted model has its entity from its insert, and its row from the save's write")
            }
            keys.append(rowID, of: entity, in: link.store.identity)
            if let existing = registered.insertUnlessPresent(model, for: RowKey(entity: entity, rowID: rowID)), existing !== model,
                let existing = existing as? any PersistentModel
            {
                // A unique conflict updated a row this context already has: that instance stays
                // the row's instance, and takes the values just written.
                do {
                    try reload(existing)
                } catch {
                    ModelKitDebugLog.log("could not refresh a \(type(of: existing)) after a unique conflict: \(error)")
                }
            }
        }
        return keys
    }

    /// Makes room in the identity map for newly saved models, counted by runs of one entity.
    private func reserveRegistrations(for models: [any PersistentModel]) {
        var run: (entity: Schema.Entity, count: Int)?
        for model in models {
            guard let entity = model._$modelKit.entity else { continue }
            if let current = run, current.entity === entity {
                run?.count += 1
                continue
            }
            if let run { registered.reserve(run.count, of: ObjectIdentifier(run.entity)) }
            run = (entity, 1)
        }
        if let run { registered.reserve(run.count, of: ObjectIdentifier(run.entity)) }
    }
}

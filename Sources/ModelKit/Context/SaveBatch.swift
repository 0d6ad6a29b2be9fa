/// One store's share of a save: the pending models whose entities it holds.
struct SaveBatch {
    let link: StoreLink
    var inserted: [any PersistentModel]
    var changed: [any PersistentModel]
    var deleted: [any PersistentModel]

    var isEmpty: Bool { inserted.isEmpty && changed.isEmpty && deleted.isEmpty }

    /// The identifiers of what saves wrote, as ``ModelContext/didSave`` reports them.
    struct Identifiers {
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []

        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

        /// Adds `other`'s identifiers; taken whole, without a copy, when there are none yet.
        mutating func append(_ other: Identifiers) {
            guard !isEmpty else { return self = other }
            inserted += other.inserted
            updated += other.updated
            deleted += other.deleted
        }
    }
}

/// The identifiers of a save's inserted models, kept as their keys, in runs of one scope, until
/// the models' array is gone: 8 bytes a model instead of an identifier's 16.
struct SavedKeys {
    private var keys: [Int64] = []
    private var runs: [(entity: Schema.Entity, scope: PersistentIdentifier.Scope, keys: StoreKeys?, count: Int)] = []

    init(capacity: Int) {
        keys.reserveCapacity(capacity)
    }

    mutating func append(_ rowID: Int64, of entity: Schema.Entity, in store: StoreIdentity) {
        keys.append(rowID)
        if let last = runs.indices.last, runs[last].entity === entity {
            runs[last].count += 1
        } else {
            runs.append((entity, store.scope(for: entity), store.keys, 1))
        }
    }

    /// The identifiers, in the order the keys came.
    var identifiers: [PersistentIdentifier] {
        var result: [PersistentIdentifier] = []
        result.reserveCapacity(keys.count)
        var index = 0
        for run in runs {
            for key in keys[index..<index + run.count] {
                // A custom store's models have keys here that stand for its identifiers.
                result.append(run.keys?.identifier(for: key) ?? PersistentIdentifier(scope: run.scope, key: .row(key)))
            }
            index += run.count
        }
        return result
    }
}

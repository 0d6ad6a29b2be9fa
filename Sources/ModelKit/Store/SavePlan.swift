/// One store's share of a save, as a value: the rows to insert, update and delete, and the
/// join-table links to change. The context makes it and never runs inside the store;
/// ``Store/save(_:trace:author:from:on:)`` writes it in one transaction, in a fixed order, and
/// answers with a ``SaveOutcome``.
///
/// A row the plan inserts has no key until the store gives it one, so whatever points at it
/// names it by its place in ``inserts``.
struct SavePlan {
    /// A row the plan names: one stored under its key, or one the plan inserts, by its place in
    /// ``SavePlan/inserts``.
    enum Row: Hashable {
        case stored(Int64)
        case inserted(Int)
    }

    /// A row's values by property index, read from its model when the store writes the row, as
    /// GRDB asks a record to encode itself: the store sees values, never the model. A to-one
    /// whose target the plan inserts reads `NULL`; the row's ``Reference``s give those columns.
    struct Values {
        private let model: any PersistentModel

        init(of model: any PersistentModel) {
            self.model = model
        }

        func callAsFunction(_ column: Int) throws -> SQLValue {
            try model._modelKitValue(at: column)
        }
    }

    /// A to-one, at `column`, pointing at a row the plan inserts.
    struct Reference {
        let column: Int
        /// The target's place in ``SavePlan/inserts``.
        let target: Int
    }

    struct Insert {
        let entity: Schema.Entity
        let values: Values
    }

    /// The rows to insert, kept as their models and runs of one entity, so that a plan of a
    /// million inserts costs no more memory than the save's list of models it shares.
    struct Inserts: RandomAccessCollection {
        private var models: [any PersistentModel] = []
        /// Each run's entity and the end of its models.
        private var runs: [(entity: Schema.Entity, end: Int)] = []

        init() {}

        /// `models`, in order, each of the entity `entity` gives.
        init(_ models: [any PersistentModel], entity: (any PersistentModel) throws -> Schema.Entity) rethrows {
            self.models = models
            for (index, model) in models.enumerated() {
                let entity = try entity(model)
                if let last = runs.indices.last, runs[last].entity === entity {
                    runs[last].end = index + 1
                } else {
                    runs.append((entity, index + 1))
                }
            }
        }

        mutating func append(_ model: any PersistentModel, of entity: Schema.Entity) {
            models.append(model)
            if let last = runs.indices.last, runs[last].entity === entity {
                runs[last].end = models.count
            } else {
                runs.append((entity, models.count))
            }
        }

        var startIndex: Int { 0 }
        var endIndex: Int { models.count }

        /// How many rows of each entity there are, in the order the entities first appear.
        var counts: [(entity: Schema.Entity, count: Int)] {
            var counts: [(entity: Schema.Entity, count: Int)] = []
            var start = 0
            for run in runs {
                if let index = counts.firstIndex(where: { $0.entity === run.entity }) {
                    counts[index].count += run.end - start
                } else {
                    counts.append((run.entity, run.end - start))
                }
                start = run.end
            }
            return counts
        }

        subscript(place: Int) -> Insert {
            var low = 0
            var high = runs.count - 1
            while low < high {
                let middle = (low + high) / 2
                if runs[middle].end > place { high = middle } else { low = middle + 1 }
            }
            return Insert(entity: runs[low].entity, values: Values(of: models[place]))
        }
    }

    struct Update {
        let entity: Schema.Entity
        let key: Int64
        let changed: ChangedColumns
        let values: Values
        /// Changed to-ones pointing at rows the plan inserts.
        var references: [Reference] = []

        /// Whether the update changes a unique constraint's column and points at no row the
        /// plan inserts: it can go before the inserts, freeing the value it held for them.
        var movesUniqueValue: Bool {
            guard references.isEmpty, !entity.sql.uniqueColumns.isEmpty else { return false }
            return entity.sql.uniqueColumns.contains { $0.contains(where: changed.contains) }
        }
    }

    /// A change to the links of one owner in one join table.
    struct Links {
        let table: String
        let targetColumn: String
        let owner: Row
        let change: Change

        enum Change {
            /// A new model's list: the stored links go (an upsert may have found a stored row
            /// with links of its own) and these come.
            case replaceAll(with: [Row])
            /// A loaded list: the stored links become these.
            case match([Row])
            /// A list never loaded: the changes made through its inverses.
            case apply(linking: [Row], unlinking: [Row])
        }
    }

    struct Delete {
        let entity: Schema.Entity
        let key: Int64
    }

    /// Rows to insert, in order: the outcome's keys come in the same order.
    var inserts = Inserts()
    /// The to-ones of inserted rows that point at other inserted rows, by the inserting row's
    /// place, ascending. Few saves have any, so they are kept apart from ``inserts``.
    var insertReferences: [(insert: Int, reference: Reference)] = []
    var updates: [Update] = []
    var links: [Links] = []
    var deletes: [Delete] = []
    /// Runs in the transaction once the rows are written, with the inserted rows' keys: how
    /// `ModelKitSync` writes its own tables in the save's transaction.
    var attachment: ((StoreSQL, _ insertedKeys: [Int64]) throws -> Void)?
}

/// What a store answers a ``SavePlan`` it committed.
struct SaveOutcome {
    /// The keys of the inserted rows, in the plan's order. A row inserted with a unique value
    /// already stored has that row's key: the insert updated it.
    let insertedKeys: [Int64]
    /// The history token of the save's transaction, if the store records history.
    let token: Int64?
}

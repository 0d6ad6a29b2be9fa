import ModelKit

/// The fast path of a pulled page: when its plan is nothing but new rows (an initial download
/// into an empty table is the main case), they are written from their values by
/// ``ModelContext/replicaInsert(_:attaching:)``, without a model and a statement each, their
/// identifiers and field records in multi-row statements. The commit is announced as a save's:
/// history, other contexts, other processes and `didSave` see the same rows.
///
/// It takes only what needs none of the save's rules: rows of entities that hold attributes only
/// (a relationship needs its targets' models or keys), none of them unique (an insert could meet
/// a stored row), each row given every synced attribute (a missing one takes its default from a
/// model). Any other page goes the way of a save.
enum PullBulkInsert {
    /// The plan's rows as inserts by entity, with their identifiers in the same order; nil when
    /// the plan is more than new rows this path takes.
    static func inserts(of plan: PullPlan, schema: SyncSchema) throws -> [(insert: ReplicaInsert, gids: [String])]? {
        guard !plan.creates.isEmpty, plan.updates.isEmpty, plan.deletes.isEmpty, plan.leaves.isEmpty, plan.restored.isEmpty,
            plan.waiting.isEmpty, plan.settled.isEmpty
        else { return nil }
        var groups: [String: (insert: ReplicaInsert, gids: [String])] = [:]
        var order: [String] = []
        for create in plan.creates {
            let entity = try schema.entity(named: create.entity)
            guard create.values.count == entity.fields.count else { return nil }
            if groups[create.entity] == nil {
                guard takes(entity) else { return nil }
                groups[create.entity] = (ReplicaInsert(entity: entity.entity, values: []), [])
                order.append(create.entity)
            }
            let width = entity.entity.replicaPropertyCount
            var row = [SQLValue](repeating: .null, count: width)
            for (name, value) in create.values {
                guard let field = entity.fieldsByName[name] else { return nil }
                row[field.index] = value.sqlValue
            }
            groups[create.entity]!.insert.values += row
            groups[create.entity]!.gids.append(create.gid)
        }
        return order.map { groups[$0]! }
    }

    /// Whether rows of `entity` can go this way: attributes only, none unique, and every column
    /// its table stores a synced one.
    private static func takes(_ entity: SyncSchema.Entity) -> Bool {
        guard entity.fields.allSatisfy({ !$0.isRelationship }), entity.entity.replicaUniqueConstraints.isEmpty else { return false }
        let synced = Set(entity.fields.map(\.index))
        return entity.entity.replicaStoredIndexes.allSatisfy(synced.contains)
    }
}

import ModelKit

/// The server's scopes as they apply to one user: which entities are scoped (by their own scope
/// or their nearest superclass's), the rows the user reads, and the checks of a push.
struct ServerScope {
    let user: String
    private let rules: [String: SyncScopes.Rule]
    /// Each scoped entity's nearest entity with a scope (itself or a superclass).
    private let scopeOf: [String: String]
    /// The entities whose rows each scope's read predicate may read: those its entity reaches
    /// through relationships and class hierarchies, a bound found from the schema alone.
    private let reaches: [String: Set<String>]
    /// The scoped entities with subclasses of their own.
    private let hasSubclasses: Set<String>

    /// What of the scopes depends on the schema alone, worked out once when the server starts
    /// rather than at every request.
    struct Layout: Sendable {
        let rules: [String: SyncScopes.Rule]
        let scopeOf: [String: String]
        let reaches: [String: Set<String>]
        let hasSubclasses: Set<String>

        /// The layout of `scopes` on `schema`; nil when no model is scoped.
        init?(_ scopes: SyncScopes, schema: SyncSchema) {
            guard !scopes.isEmpty else { return nil }
            rules = scopes.rules
            var scopeOf: [String: String] = [:]
            for (name, entity) in schema.entities {
                if let scoped = entity.lineage.first(where: { scopes.rules[$0] != nil }) { scopeOf[name] = scoped }
            }
            self.scopeOf = scopeOf
            var reaches: [String: Set<String>] = [:]
            for entity in scopes.rules.keys { reaches[entity] = ServerScope.reach(from: entity, in: schema) }
            self.reaches = reaches
            hasSubclasses = Set(schema.entities.values.flatMap { $0.lineage.dropFirst() }.filter { scopes.rules[$0] != nil })
        }
    }

    /// The scopes of `user`; nil on a server without scopes, where every user reads everything.
    init?(_ layout: Layout?, user: String?) {
        guard let layout, let user else { return nil }
        self.user = user
        rules = layout.rules
        scopeOf = layout.scopeOf
        reaches = layout.reaches
        hasSubclasses = layout.hasSubclasses
    }

    /// The entities reachable from `start` by relationships (either side), superclasses and
    /// subclasses.
    private static func reach(from start: String, in schema: SyncSchema) -> Set<String> {
        var subclasses: [String: [String]] = [:]
        for entity in schema.entities.values {
            if let parent = entity.entity.superentity?.name { subclasses[parent, default: []].append(entity.name) }
        }
        var reached: Set<String> = [start]
        var queue = [start]
        while let name = queue.popLast() {
            guard let entity = schema.entities[name] else { continue }
            var next = subclasses[name] ?? []
            if let parent = entity.entity.superentity?.name { next.append(parent) }
            for property in entity.entity.replicaProperties {
                switch property.kind {
                case .attribute: break
                case .toOne(let target, _), .toMany(let target): next.append(target)
                }
            }
            for entity in next where reached.insert(entity).inserted { queue.append(entity) }
        }
        return reached
    }

    func isScoped(_ entity: String) -> Bool { scopeOf[entity] != nil }

    /// The rows of scoped entities the user reads, one query per scope. With `unchanged`,
    /// the entities no transaction touched since `view` held exactly what the user read: the
    /// scopes whose predicates cannot read them take their rows from the view, with no query.
    func readable(in context: ModelContext, unchanged: (touched: Set<String>, view: ScopeView)? = nil) throws -> Readable {
        var sets: [String: Set<SyncIDs.RowRef>] = [:]
        for (entity, rule) in rules {
            if let unchanged, reaches[entity, default: []].isDisjoint(with: unchanged.touched) {
                sets[entity] = Set(unchanged.view.keys.filter { scopeOf[$0.entity] == entity })
                continue
            }
            sets[entity] = Set(try rule.readable(user, context, hasSubclasses.contains(entity)).compactMap { id in id.rowKey.map { SyncIDs.RowRef(entity: id.entityName, key: $0) } })
        }
        return Readable(sets: sets, scopeOf: scopeOf)
    }

    /// What the user reads, as the store held it when read.
    struct Readable {
        let sets: [String: Set<SyncIDs.RowRef>]
        let scopeOf: [String: String]

        /// Whether the user reads the row: one of an unscoped entity, or one its scope admits.
        func reads(_ ref: SyncIDs.RowRef) -> Bool {
            guard let scope = scopeOf[ref.entity] else { return true }
            return sets[scope]?.contains(ref) == true
        }

        /// Every row of a scoped entity the user reads, by entity and key.
        var rows: [SyncIDs.RowRef] {
            Set(sets.values.joined()).filter { scopeOf[$0.entity] != nil && reads($0) }.sorted { ($0.entity, $0.key) < ($1.entity, $1.key) }
        }
    }

    /// Judges models in memory (as a push leaves them, before it is saved): whether the user
    /// reads and writes each.
    func judge() -> Judge { Judge(scope: self) }

    final class Judge {
        private let scope: ServerScope
        private var readers: [String: @Sendable (any PersistentModel) throws -> Bool] = [:]
        private var writers: [String: @Sendable (any PersistentModel) throws -> Bool] = [:]

        init(scope: ServerScope) { self.scope = scope }

        func isScoped(_ model: any PersistentModel) -> Bool { scope.isScoped(model.persistentModelID.entityName) }

        /// Whether the user reads `model` (always, for an unscoped entity).
        func reads(_ model: any PersistentModel) throws -> Bool {
            guard let entity = scope.scopeOf[model.persistentModelID.entityName], let rule = scope.rules[entity] else { return true }
            if readers[entity] == nil { readers[entity] = rule.reads(scope.user) }
            return try readers[entity]!(model)
        }

        /// Whether the user writes `model` (always, for an unscoped entity).
        func writes(_ model: any PersistentModel) throws -> Bool {
            guard let entity = scope.scopeOf[model.persistentModelID.entityName], let rule = scope.rules[entity] else { return true }
            if writers[entity] == nil { writers[entity] = rule.writes(scope.user) }
            return try writers[entity]!(model)
        }
    }

    /// A short digest of the user, carried in cursors: a cursor made for another user on the
    /// same device is refused, and the device downloads its own rows afresh.
    var userDigest: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in user.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 36)
    }
}

extension SyncChange {
    /// The change with the relationships to rows `reads` refuses left out: a to-one to such a
    /// row reads as empty. The device learns nothing of rows its user does not read.
    func hiding(unless reads: (String) throws -> Bool) rethrows -> SyncChange {
        var change = self
        for (name, field) in fields {
            switch field.value {
            case .reference(let gid): if try !reads(gid) { change.fields[name]?.value = .null }
            case .references(let gids):
                let shown = try gids.filter(reads)
                if shown.count != gids.count { change.fields[name]?.value = .references(shown) }
            default: break
            }
        }
        return change
    }
}

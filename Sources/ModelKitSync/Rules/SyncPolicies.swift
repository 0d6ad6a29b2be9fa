import ModelKit

/// The conflict rule of each property, chosen by the app and applied by the server. Every
/// property starts with ``SyncPolicy/lastEditWins``.
///
/// ```swift
/// var policies = SyncPolicies()
/// policies.set(\Note.title, .serverWins)
/// policies.set(\Counter.value, .custom { c in c.server + c.incoming - (c.base ?? 0) })
/// let server = try SyncServer(container: container, policies: policies)
/// ```
///
/// To-many relationships merge as sets whatever the rule: what each device added and removed
/// since its base is applied to the server's set.
public struct SyncPolicies: Sendable {
    private var rules: [PropertyKey: Rule] = [:]

    public init() {}

    /// Resolves conflicts of `keyPath`'s property by `policy`.
    public mutating func set<Model: PersistentModel, Value>(_ keyPath: KeyPath<Model, Value>, _ policy: SyncPolicy<Value>) {
        guard let metadata = Model.schemaMetadata.first(where: { $0.keyPath == keyPath }) else {
            preconditionFailure("\(keyPath) is not a persisted property of \(Model.self): a sync policy applies to stored properties")
        }
        let key = PropertyKey(entity: String(describing: Model.self), property: metadata.name)
        switch policy {
        case .lastEditWins: rules[key] = nil
        case .serverWins: rules[key] = .serverWins
        case .custom(let resolve):
            rules[key] = .custom { base, server, incoming in
                let decode: (SyncValue) throws -> Value = { try ReplicaValues.decode($0.sqlValue, as: Value.self) }
                let conflict = SyncConflict(base: try base.map(decode), server: try decode(server), incoming: try decode(incoming))
                return SyncValue(try ReplicaValues.encode(resolve(conflict)))
            }
        }
    }

    /// The rule of `property` of `entity` (a class in a hierarchy follows the rules set on its
    /// superclasses' key paths too, through `entities`, its class and its superclasses).
    func rule(for property: String, of entities: [String]) -> Rule {
        for entity in entities {
            if let rule = rules[PropertyKey(entity: entity, property: property)] { return rule }
        }
        return .lastEditWins
    }

    struct PropertyKey: Hashable, Sendable {
        let entity: String
        let property: String
    }

    /// A policy with its value type erased to the wire's.
    enum Rule: Sendable {
        case lastEditWins
        case serverWins
        case custom(@Sendable (SyncValue?, SyncValue, SyncValue) throws -> SyncValue)
    }
}

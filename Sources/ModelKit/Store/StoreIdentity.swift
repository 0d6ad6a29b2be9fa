import Synchronization

/// A store's identifier, held by reference so that every model of the store shares one.
///
/// Each identifier made for a row names its entity's scope here: every save, every loaded model's
/// `persistentModelID`. The scopes of the schema's entities are made with the store and read
/// without a lock, so that requests on many threads do not meet here (a lock taken by every save
/// of a server was contended enough to spin). Entities from elsewhere, which only a model made
/// outside the store's container can bring, are kept behind a lock.
final class StoreIdentity: Sendable {
    let value: String
    /// A custom store's identifiers by the keys its models have here; nil for the engine's own
    /// stores, whose keys are their rows'.
    let keys: StoreKeys?
    /// The scope of each entity of the store's schema, made once. The entity is kept so that its
    /// identity is never another's. Looked up by identity in a line, a comparison an entity:
    /// hashing an identifier costs about as much as forty, more than most schemas have entities.
    private let schemaScopes: [Scope]
    /// The scopes of entities from outside the schema, made on first use.
    private let otherScopes = Mutex<[ObjectIdentifier: Scope]>([:])

    private struct Scope: Sendable {
        let entity: Schema.Entity
        let scope: PersistentIdentifier.Scope
    }

    /// The identity of the store `value` names, with the scopes of `entities` made now.
    init(_ value: String, keys: StoreKeys? = nil, entities: [Schema.Entity] = []) {
        self.value = value
        self.keys = keys
        schemaScopes = entities.map { Scope(entity: $0, scope: .init(entityName: $0.name, storeIdentifier: value)) }
    }

    /// What the identifiers of `entity`'s rows here share.
    func scope(for entity: Schema.Entity) -> PersistentIdentifier.Scope {
        for found in schemaScopes where found.entity === entity { return found.scope }
        let id = ObjectIdentifier(entity)
        return otherScopes.withLock { scopes in
            if let found = scopes[id] { return found.scope }
            let found = Scope(entity: entity, scope: .init(entityName: entity.name, storeIdentifier: value))
            scopes[id] = found
            return found.scope
        }
    }
}

import Synchronization

/// The entities of the model types containers of this process opened, by name: what decoding a
/// ``DefaultSnapshot`` reads each property's type from. The newest container's entity of a name
/// wins.
enum SnapshotEntities {
    private static let entities = Mutex<[String: Schema.Entity]>([:])

    /// Records `schema`'s entities.
    static func register(_ schema: Schema) {
        entities.withLock { entities in
            for entity in schema.entities { entities[entity.name] = entity }
        }
    }

    /// The entity named `name`, if a container had one.
    static func entity(named name: String) -> Schema.Entity? {
        entities.withLock { $0[name] }
    }
}

import Foundation
import ModelKit

/// A custom data store whose snapshots are in memory: what `custom_store_fetch` fetches from.
final class BenchSnapshotStoreConfiguration: DataStoreConfiguration {
    typealias Store = BenchSnapshotStore
    var name: String
    var schema: Schema?
    init(name: String, schema: Schema?) {
        self.name = name
        self.schema = schema
    }
    static func == (lhs: BenchSnapshotStoreConfiguration, rhs: BenchSnapshotStoreConfiguration) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

final class BenchSnapshotStore: DataStore {
    typealias Configuration = BenchSnapshotStoreConfiguration
    typealias Snapshot = DefaultSnapshot
    let configuration: BenchSnapshotStoreConfiguration
    let schema: Schema
    let identifier = "bench-snapshots"
    /// The snapshots of each entity, by name, in the order they were saved.
    private var snapshots: [String: [DefaultSnapshot]] = [:]

    init(_ configuration: BenchSnapshotStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        schema = configuration.schema!
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots[Schema.entityName(for: T.self)] ?? [])
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let identifier = try PersistentIdentifier.identifier(
                for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
            remapped[snapshot.persistentIdentifier] = identifier
            snapshots[identifier.entityName, default: []].append(snapshot.copy(persistentIdentifier: identifier, remappedIdentifiers: nil))
        }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }
}

/// `custom_store_fetch`: fetching 10,000 models, each run in a new context, from a custom store
/// whose snapshots are in memory (the engine column) and from SQLite (the raw column, here
/// ModelKit's own SQLite store): the ratio is what a custom store's snapshots cost over rows.
func customStoreCases(options: Options) throws -> [CaseResult] {
    guard options.wants("custom_store_fetch") else { return [] }
    let count = 10_000
    let schema = Schema([BenchItem.self, BenchParent.self])
    let custom = try ModelContainer(for: schema, configurations: BenchSnapshotStoreConfiguration(name: "bench", schema: schema))
    return try withTemporaryDirectory { directory in
        let sqlite = try EngineStore(url: directory.appendingPathComponent("engine.store"))
        try sqlite.insert(count)
        let context = ModelContext(custom)
        for i in 0..<count {
            context.insert(BenchItem(key: i, name: BenchData.name(i), value: BenchData.value(i), flag: BenchData.flag(i)))
        }
        try context.save()
        var results: [CaseResult] = []
        results.appendIfPresent(
            try measureAlternating("custom_store_fetch", options) {
                try seconds {
                    let fetched = try ModelContext(custom).fetch(FetchDescriptor<BenchItem>())
                    precondition(fetched.count == count)
                }
            } raw: {
                try seconds {
                    let fetched = try ModelContext(sqlite.container).fetch(FetchDescriptor<BenchItem>())
                    precondition(fetched.count == count)
                }
            })
        return results
    }
}

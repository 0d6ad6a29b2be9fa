import Foundation
import SwiftData

// SwiftData's custom data store family as Apple declares it: a store conforming to each protocol
// with Apple's requirements, and each declaration as a typed reference.

final class SigStoreConfiguration: DataStoreConfiguration {
    typealias Store = SigStore
    var name = "sig"
    var schema: Schema?
    static func == (lhs: SigStoreConfiguration, rhs: SigStoreConfiguration) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

final class SigStore: DataStore, DataStoreBatching, HistoryProviding {
    typealias Configuration = SigStoreConfiguration
    typealias Snapshot = DefaultSnapshot
    typealias HistoryType = SigTransaction
    let configuration: SigStoreConfiguration
    let identifier = "sig-store"
    let schema: Schema

    init(_ configuration: SigStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        schema = configuration.schema ?? Schema([])
    }

    func fetch<T>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> where T: PersistentModel {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: [], relatedSnapshots: [:])
    }
    func fetchCount<T>(_ request: DataStoreFetchRequest<T>) throws -> Int where T: PersistentModel { 0 }
    func fetchIdentifiers<T>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] where T: PersistentModel { [] }
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: [:], snapshotsToReregister: [:])
    }
    func erase() throws {}
    func initializeState(for editingState: EditingState) {}
    func invalidateState(for editingState: EditingState) {}
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] { [:] }
    func delete<T>(_ request: DataStoreBatchDeleteRequest<T>) throws where T: PersistentModel {}
    static var historyType: SigTransaction.Type { SigTransaction.self }
    func fetchHistory(_ descriptor: HistoryDescriptor<SigTransaction>) throws -> [SigTransaction] { [] }
    func deleteHistory(_ descriptor: HistoryDescriptor<SigTransaction>) throws {}
}

/// References that compile only if each declaration of the family is as Apple's.
@MainActor
func dataStoreSignatures(_ context: ModelContext) throws {
    // MARK: DataStoreConfiguration and DataStore
    let configuration = SigStoreConfiguration()
    configuration.schema = Schema([Sig.self, SigChild.self])
    let _: String = configuration.name
    let _: Schema? = configuration.schema
    let _: () throws -> Void = configuration.validate
    let _: SigStore.Type = SigStoreConfiguration.Store.self
    let _: DefaultStore.Type = ModelConfiguration.Store.self
    let store = try SigStore(configuration, migrationPlan: nil)
    let _: SigStoreConfiguration = store.configuration
    let _: String = store.identifier
    let _: Schema = store.schema
    let state: EditingState = context.editingState
    let _: UUID = state.id
    let _: EditingState.ID = state.id
    let _: String? = state.author
    let _: (EditingState) -> Void = store.initializeState(for:)
    let _: (EditingState) -> Void = store.invalidateState(for:)
    let _: ([PersistentIdentifier], EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] = store.cachedSnapshots(for:editingState:)
    let _: () throws -> Void = store.erase
    _ = try ModelContainer(for: Sig.self, SigChild.self, configurations: configuration)

    // MARK: Requests and results
    func requests(_ fetch: DataStoreFetchRequest<Sig>, _ save: DataStoreSaveChangesRequest<DefaultSnapshot>, _ delete: DataStoreBatchDeleteRequest<Sig>) throws {
        let _: FetchDescriptor<Sig> = fetch.descriptor
        let _: EditingState = fetch.editingState
        let result: DataStoreFetchResult<Sig, DefaultSnapshot> = try store.fetch(fetch)
        let _: FetchDescriptor<Sig> = result.descriptor
        let _: [DefaultSnapshot] = result.fetchedSnapshots
        let _: [PersistentIdentifier: DefaultSnapshot] = result.relatedSnapshots
        let _: Int = try store.fetchCount(fetch)
        let _: [PersistentIdentifier] = try store.fetchIdentifiers(fetch)
        let _: [DefaultSnapshot] = save.inserted
        let _: [DefaultSnapshot] = save.updated
        let _: [DefaultSnapshot] = save.deleted
        let _: EditingState = save.editingState
        let saved: DataStoreSaveChangesResult<DefaultSnapshot> = try store.save(save)
        let _: String = saved.storeIdentifier
        let _: [PersistentIdentifier: PersistentIdentifier] = saved.remappedIdentifiers
        let _: [PersistentIdentifier: DefaultSnapshot] = saved.snapshotsToReregister
        let _: (any HistoryToken)? = saved.historyToken
        let _: EditingState = delete.editingState
        let _: Bool = delete.includeSubclasses
        let _: Predicate<Sig>? = delete.predicate
        try store.delete(delete)
    }
    _ = requests
    _ = DataStoreFetchResult<Sig, DefaultSnapshot>(descriptor: FetchDescriptor(), fetchedSnapshots: [])
    _ = DataStoreSaveChangesResult<DefaultSnapshot>(for: "s")
    _ = DataStoreSaveChangesResult<DefaultSnapshot>(for: "s", remappedIdentifiers: [:], snapshotsToReregister: [:], historyToken: nil)

    // MARK: Snapshots, coding keys and errors
    func snapshots(_ snapshot: DefaultSnapshot, _ identifier: PersistentIdentifier) {
        let _: PersistentIdentifier = snapshot.persistentIdentifier
        let _: DefaultSnapshot = snapshot.copy(persistentIdentifier: identifier, remappedIdentifiers: nil)
        let _: any DataStoreSnapshot = snapshot
        let _: any Codable & Sendable = snapshot
    }
    _ = snapshots
    let value: any DataStoreSnapshotValue = "text"
    _ = value
    let keys: [DataStoreSnapshotCodingKey] = [.persistentIdentifier, .modeledProperty("name")]
    for key in keys {
        let _: String = key.stringValue
        let _: Int? = key.intValue
        let _: String = key.description
        let _: String = key.debugDescription
    }
    let _: DataStoreSnapshotCodingKey? = DataStoreSnapshotCodingKey(stringValue: "name")
    let _: DataStoreSnapshotCodingKey? = DataStoreSnapshotCodingKey(intValue: 0)
    let errors: [DataStoreError] = [.invalidPredicate, .preferInMemoryFilter, .preferInMemorySort, .unsupportedFeature]
    let _: Set<DataStoreError> = Set(errors)
    let _: any Error = errors[0]

    // MARK: DefaultStore and HistoryProviding
    let defaultStore = try DefaultStore(ModelConfiguration(schema: Schema([Sig.self, SigChild.self]), isStoredInMemoryOnly: true), migrationPlan: nil)
    let _: String = defaultStore.name
    let _: ModelConfiguration = defaultStore.configuration
    let _: String = defaultStore.identifier
    let _: Schema = defaultStore.schema
    let _: DefaultHistoryTransaction.Type = DefaultStore.historyType
    let _: DefaultHistoryToken.Type = DefaultStore.TokenType.self
    let _: DefaultHistoryTransaction.Type = DefaultStore.HistoryType.self
    let _: DefaultSnapshot.Type = DefaultStore.Snapshot.self
    let _: ModelConfiguration.Type = DefaultStore.Configuration.self
    let _: [DefaultHistoryTransaction] = try defaultStore.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
    let _: (HistoryDescriptor<DefaultHistoryTransaction>) throws -> Void = defaultStore.deleteHistory
    let _: any DataStoreBatching = defaultStore
    let _: any HistoryProviding = defaultStore
    let _: SigTransaction.Type = SigStore.historyType

    // MARK: PersistentIdentifier keys
    let _: PersistentIdentifier = try PersistentIdentifier.identifier(for: "s", entityName: "Sig", primaryKey: UUID())
    let _: PersistentIdentifier = try PersistentIdentifier.identifier(for: "s", entityName: "Sig", primaryKey: "key")
    let _: PersistentIdentifier = try PersistentIdentifier.identifier(for: "s", entityName: "Sig", primaryKey: 42)
}

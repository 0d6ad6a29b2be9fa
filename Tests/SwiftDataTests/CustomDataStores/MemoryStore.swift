import Foundation
import SwiftData
import Synchronization

/// A store that keeps snapshots in memory, shared by name in the process (so that a second
/// container of the same name reopens it): it batches deletes, keeps a history, answers sorts
/// and paging itself when there is no predicate, and records what it was asked.
final class MemoryStoreConfiguration: DataStoreConfiguration {
    typealias Store = MemoryStore
    var name: String
    var schema: Schema?

    init(name: String, schema: Schema? = nil) {
        self.name = name
        self.schema = schema
    }

    static func == (lhs: MemoryStoreConfiguration, rhs: MemoryStoreConfiguration) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A transaction of the memory store's history.
struct MemoryTransaction: HistoryTransaction {
    struct Token: Comparable, Hashable, Identifiable, Sendable {
        let id: Int
        static func < (lhs: Token, rhs: Token) -> Bool { lhs.id < rhs.id }
    }
    let id: Int
    let author: String?
    let changes: [HistoryChange] = []
    let storeIdentifier: String
    let timestamp = Date()
    var token: Token { Token(id: id) }
    var transactionIdentifier: Int { id }
    let inserted: Int

    static func == (lhs: MemoryTransaction, rhs: MemoryTransaction) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// What the memory stores of one name hold and heard.
final class MemoryStoreState: @unchecked Sendable {
    var snapshots: [PersistentIdentifier: DefaultSnapshot] = [:]
    var order: [PersistentIdentifier] = []
    var nextKey = 1
    var history: [MemoryTransaction] = []
    var batchDeletes = 0
    var fetches: [String] = []
    var initialized: [UUID] = []
    var invalidated: [UUID] = []

    private static let states = Mutex<[String: MemoryStoreState]>([:])
    static func named(_ name: String) -> MemoryStoreState {
        states.withLock { states in
            if let state = states[name] { return state }
            let state = MemoryStoreState()
            states[name] = state
            return state
        }
    }
}

final class MemoryStore: DataStore, DataStoreBatching, HistoryProviding {
    typealias Configuration = MemoryStoreConfiguration
    typealias Snapshot = DefaultSnapshot
    typealias HistoryType = MemoryTransaction

    let configuration: MemoryStoreConfiguration
    let schema: Schema
    let identifier: String
    let state: MemoryStoreState

    init(_ configuration: MemoryStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        schema = configuration.schema ?? Schema([])
        identifier = "memory-" + configuration.name
        state = MemoryStoreState.named(configuration.name)
    }

    static var historyType: MemoryTransaction.Type { MemoryTransaction.self }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        state.fetches.append(Schema.entityName(for: T.self))
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let name = Schema.entityName(for: T.self)
        var snapshots = state.order.compactMap { state.snapshots[$0] }.filter { $0.persistentIdentifier.entityName == name }
        snapshots = Array(snapshots.dropFirst(request.descriptor.fetchOffset ?? 0).prefix(request.descriptor.fetchLimit ?? .max))
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let key = state.nextKey
            state.nextKey += 1
            let identifier = try PersistentIdentifier.identifier(
                for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: "m-\(key)")
            remapped[snapshot.persistentIdentifier] = identifier
        }
        var reregister: [PersistentIdentifier: DefaultSnapshot] = [:]
        for snapshot in request.inserted {
            let identifier = remapped[snapshot.persistentIdentifier]!
            // This store remaps the identifiers related snapshots hold itself.
            var stored = snapshot.copy(persistentIdentifier: identifier, remappedIdentifiers: remapped)
            // It trims titles, and says so.
            if let title = stored.values["title"] as? String, title != title.trimmingCharacters(in: .whitespaces) {
                var values = stored.values
                values["title"] = title.trimmingCharacters(in: .whitespaces)
                stored = DefaultSnapshot(persistentIdentifier: identifier, values: values)
                reregister[snapshot.persistentIdentifier] = stored
            }
            state.snapshots[identifier] = stored
            state.order.append(identifier)
        }
        for snapshot in request.updated { state.snapshots[snapshot.persistentIdentifier] = snapshot }
        for snapshot in request.deleted { remove(snapshot.persistentIdentifier) }
        state.history.append(MemoryTransaction(
            id: state.history.count + 1, author: request.editingState.author, storeIdentifier: identifier, inserted: request.inserted.count))
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped, snapshotsToReregister: reregister)
    }

    private func remove(_ identifier: PersistentIdentifier) {
        state.snapshots[identifier] = nil
        state.order.removeAll { $0 == identifier }
    }

    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        state.batchDeletes += 1
        // A batch delete by predicate needs models: this store deletes all of the type, or what
        // the predicate names by a property equal to a string (enough for the tests).
        let name = Schema.entityName(for: T.self)
        for identifier in state.order where identifier.entityName == name {
            guard let predicate = request.predicate else { remove(identifier); continue }
            _ = predicate
            throw DataStoreError.unsupportedFeature
        }
    }

    func erase() throws {
        state.snapshots = [:]
        state.order = []
    }

    func initializeState(for editingState: EditingState) { state.initialized.append(editingState.id) }
    func invalidateState(for editingState: EditingState) { state.invalidated.append(editingState.id) }

    func fetchHistory(_ descriptor: HistoryDescriptor<MemoryTransaction>) throws -> [MemoryTransaction] { state.history }
    func deleteHistory(_ descriptor: HistoryDescriptor<MemoryTransaction>) throws { state.history = [] }
}

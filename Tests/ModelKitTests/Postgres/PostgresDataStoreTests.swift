import Foundation
import ModelKit
import ModelKitPostgres
import Testing

/// A PostgreSQL database driven through the `DataStore` protocol: `PostgresConfiguration`'s
/// `Store`.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresDataStoreTests {
    @Test func aPostgresStoreSavesAndFetchesSnapshots() throws {
        let database = PostgresTestDatabase()
        #expect(PostgresConfiguration.Store.self == PostgresStore.self)
        let store = try PostgresStore(PostgresConfiguration(url: database.url, schema: Schema([TodoItem.self])), migrationPlan: nil)
        let state = EditingState()
        let temporary = try PersistentIdentifier.identifier(for: "new", entityName: "TodoItem", primaryKey: UUID())
        let saved = try store.save(DataStoreSaveChangesRequest(
            editingState: state, inserted: [DefaultSnapshot(persistentIdentifier: temporary, values: ["title": "served"])], updated: [], deleted: []))
        let permanent = try #require(saved.remappedIdentifiers[temporary])
        #expect(permanent.storeIdentifier == store.identifier)
        let request = DataStoreFetchRequest(descriptor: FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == "served" }), editingState: state)
        #expect(try store.fetch(request).fetchedSnapshots.map(\.persistentIdentifier) == [permanent])
        #expect(try store.fetchCount(request) == 1)
        #expect(try database.rows("SELECT title FROM \"TodoItem\"") == [["served"]])
    }
}

import Foundation
import Testing

@testable import ModelKit

@Model final class Player {
    @Attribute(.unique) var handle: String
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Season.player) var seasons: [Season] = []
    var squads: [Squad] = []
    init(handle: String, name: String) {
        self.handle = handle
        self.name = name
    }
}

@Model final class Season {
    var year: Int
    var player: Player?
    init(year: Int) { self.year = year }
}

@Model final class Squad {
    var name: String
    @Relationship(inverse: \Player.squads) var players: [Player] = []
    init(name: String) { self.name = name }
}

/// A save that deletes a row and gives its unique value to another row (a new one, or a stored
/// one renamed) ends with that other row, as in SwiftData: the delete frees the value first.
@Suite struct UniqueValueTakeoverTests {
    static let playerTypes: [any PersistentModel.Type] = [Player.self, Season.self, Squad.self]

    /// A container on the store again (a fresh container where the store outlives one; in
    /// memory, the same container).
    func reopened(_ store: TestStore, _ container: ModelContainer, types: [any PersistentModel.Type]) throws -> ModelContainer {
        store.kind == .inMemory ? container : try store.container(forTypes: types)
    }

    @Test(arguments: StoreKind.withPostgres)
    func aNewModelTakingTheUniqueValueOfOneDeletedInTheSameSaveIsStoredWithItsRelationships(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: Self.playerTypes)
        let context = ModelContext(container)
        let squad = Squad(name: "Blue")
        let old = Player(handle: "ada", name: "Old Ada")
        old.seasons = [Season(year: 2020)]
        old.squads = [squad]
        context.insert(old)
        try context.save()
        let oldID = old.persistentModelID

        context.delete(old)
        let new = Player(handle: "ada", name: "New Ada")
        new.seasons = [Season(year: 2025)]
        new.squads = [squad]
        context.insert(new)
        try context.save()

        #expect(new.persistentModelID != oldID)
        let reader = ModelContext(try reopened(store, container, types: Self.playerTypes))
        let players = try reader.fetch(FetchDescriptor<Player>())
        #expect(players.map(\.name) == ["New Ada"])
        #expect(players.first?.persistentModelID == new.persistentModelID)
        #expect(players.first?.seasons.map(\.year) == [2025])
        #expect(players.first?.squads.map(\.name) == ["Blue"])
        #expect(try reader.fetch(FetchDescriptor<Season>()).map(\.year) == [2025], "the old player's season went with it")
        #expect(try reader.fetch(FetchDescriptor<Squad>()).first?.players.map(\.name) == ["New Ada"])

        let save = try #require(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        let playerChanges = save.changes.filter { $0.changedPersistentIdentifier.entityName == "Player" }
        let newID = new.persistentModelID
        #expect(playerChanges.contains { if case .insert = $0 { $0.changedPersistentIdentifier == newID } else { false } })
        #expect(playerChanges.contains { if case .delete = $0 { $0.changedPersistentIdentifier == oldID } else { false } })
        #expect(!playerChanges.contains { if case .update = $0 { true } else { false } })
    }

    @Test(arguments: StoreKind.withPostgres)
    func aStoredModelRenamedToTheUniqueValueOfOneDeletedInTheSameSaveKeepsIt(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: Self.playerTypes)
        let context = ModelContext(container)
        let (ada, bob) = (Player(handle: "ada", name: "Ada"), Player(handle: "bob", name: "Bob"))
        context.insert(ada)
        context.insert(bob)
        try context.save()
        let (adaID, bobID) = (ada.persistentModelID, bob.persistentModelID)

        context.delete(ada)
        bob.handle = "ada"
        try context.save()

        let reader = ModelContext(try reopened(store, container, types: Self.playerTypes))
        let players = try reader.fetch(FetchDescriptor<Player>())
        #expect(players.map(\.handle) == ["ada"])
        #expect(players.map(\.persistentModelID) == [bobID])
        let save = try #require(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        #expect(save.changes.contains { if case .update = $0 { $0.changedPersistentIdentifier == bobID } else { false } })
        #expect(save.changes.contains { if case .delete = $0 { $0.changedPersistentIdentifier == adaID } else { false } })
    }

    @Test(arguments: StoreKind.withPostgres)
    func aSubclassModelTakingTheBaseClassUniqueValueOfOneDeletedInTheSameSaveIsStored(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let types: [any PersistentModel.Type] = [Subscriber.self, GoldSubscriber.self]
        let container = try store.container(forTypes: types)
        let context = ModelContext(container)
        let plain = Subscriber(handle: "ada", balance: 10)
        context.insert(plain)
        try context.save()
        let plainID = plain.persistentModelID

        context.delete(plain)
        let gold = GoldSubscriber(handle: "ada", balance: 50, tier: 2)
        context.insert(gold)
        try context.save()

        #expect(gold.persistentModelID != plainID)
        let accounts = try ModelContext(try reopened(store, container, types: types)).fetch(FetchDescriptor<Subscriber>())
        #expect(accounts.count == 1)
        let stored = try #require(accounts.first as? GoldSubscriber)
        #expect(stored.persistentModelID == gold.persistentModelID)
        #expect(stored.balance == 50 && stored.tier == 2)
    }
}

import Foundation
import ModelKit
import Testing

/// A store's life with a class hierarchy: migrating to one, history, other contexts, observers
/// and unique constraints.

enum VoyagesV1 {
    @Model class Voyage {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum VoyagesV2 {
    @Model class Voyage {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Cruise: Voyage {
        var ship: String

        init(name: String, ship: String) {
            self.ship = ship
            super.init(name: name)
        }
    }
}

@Model class Subscriber {
    @Attribute(.unique) var handle: String
    var balance: Int
    init(handle: String, balance: Int) {
        self.handle = handle
        self.balance = balance
    }
}

@Model final class GoldSubscriber: Subscriber {
    var tier: Int
    init(handle: String, balance: Int, tier: Int) {
        self.tier = tier
        super.init(handle: handle, balance: balance)
    }
}

@Suite struct HierarchyStoreTests {
    @Test(arguments: StoreKind.sharedStores)
    func addingASubclassToAStoredModelIsALightweightMigration(kind: StoreKind) throws {
        let store = try TestStore(kind)
        do {
            let context = ModelContext(try store.container(for: VoyagesV1.Voyage.self))
            context.insert(VoyagesV1.Voyage(name: "Fjords"))
            try context.save()
        }
        let container = try store.container(for: VoyagesV2.Voyage.self, VoyagesV2.Cruise.self)
        let context = ModelContext(container)
        context.insert(VoyagesV2.Cruise(name: "Caribbean", ship: "Aurora"))
        try context.save()
        let fresh = ModelContext(container)
        let voyages = try fresh.fetch(FetchDescriptor<VoyagesV2.Voyage>(sortBy: [SortDescriptor(\.name)]))
        #expect(voyages.map(\.name) == ["Caribbean", "Fjords"])
        #expect(voyages.map { $0 is VoyagesV2.Cruise } == [true, false], "rows stored before the hierarchy are the base class's")
        #expect(try fresh.fetch(FetchDescriptor<VoyagesV2.Cruise>()).map(\.ship) == ["Aurora"])
        // Opening the migrated store again changes nothing.
        #expect(try ModelContext(try store.container(for: VoyagesV2.Voyage.self, VoyagesV2.Cruise.self))
            .fetchCount(FetchDescriptor<VoyagesV2.Voyage>()) == 2)
    }

    @Test(arguments: StoreKind.withPostgres)
    func historyNamesEachChangeAfterItsOwnClassAndKeepsInheritedPreservedValues(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(forTypes: excursionTypes))
        let trip = BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120)
        context.insert(trip)
        try context.save()
        trip.perdiem = 150
        try context.save()
        let id = trip.persistentModelID
        context.delete(trip)
        try context.save()
        let changes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).flatMap(\.changes)
        #expect(changes.map(\.changedPersistentIdentifier) == [id, id, id])
        #expect(id.entityName == "BusinessExcursion")
        guard case .update(let update as DefaultHistoryUpdate<BusinessExcursion>) = changes[1],
            case .delete(let deletion as DefaultHistoryDelete<BusinessExcursion>) = changes[2]
        else {
            Issue.record("the changes are not a business trip's: \(changes)")
            return
        }
        #expect(update.updatedAttributes.contains(\BusinessExcursion.perdiem))
        #expect(deletion.tombstone[\BusinessExcursion.name] as? String == "Sales")
    }

    @Test(arguments: StoreKind.withPostgres)
    func anotherContextsSaveOfASubclassReachesModelsFetchedAsTheBaseClass(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: excursionTypes)
        let writer = ModelContext(container)
        let trip = BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120)
        writer.insert(trip)
        try writer.save()
        let reader = ModelContext(container)
        let seen = try #require(try reader.fetch(FetchDescriptor<Excursion>()).first as? BusinessExcursion)
        trip.perdiem = 180
        trip.destination = "Munich"
        try writer.save()
        let again = try reader.fetch(FetchDescriptor<Excursion>())
        #expect(again.first === seen)
        #expect(seen.perdiem == 180 && seen.destination == "Munich")
    }

    @Test(arguments: StoreKind.withPostgres)
    func aUniqueAttributeOfTheBaseClassIsUniqueAcrossTheHierarchy(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Subscriber.self, GoldSubscriber.self)
        let context = ModelContext(container)
        context.insert(Subscriber(handle: "ada", balance: 10))
        try context.save()
        let other = ModelContext(container)
        other.insert(GoldSubscriber(handle: "ada", balance: 50, tier: 2))
        try other.save()
        let accounts = try ModelContext(container).fetch(FetchDescriptor<Subscriber>())
        #expect(accounts.count == 1)
        let premium = try #require(accounts.first as? GoldSubscriber, "the inserted model's class wins, as its values do")
        #expect(premium.balance == 50 && premium.tier == 2)
    }
}

/// Observers of a class see saves of its subclasses, and only of them.
@MainActor @Suite struct HierarchyObserverTests {
    @Test(arguments: StoreKind.withPostgres)
    func anObserverOfTheBaseClassFollowsSavesOfSubclassesAndOneOfASubclassOnlyItsOwn(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: excursionTypes)
        let all = try ResultsObserver<Excursion, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: container)
        let personal = try ResultsObserver<PersonalExcursion, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: container)
        let allChanges = ChangeCounter { _ = all.results }
        let personalChanges = ChangeCounter { _ = personal.results }
        let writer = ModelContext(container)
        let trip = BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120)
        writer.insert(trip)
        try writer.save()
        #expect(await allChanges.wait(for: 1))
        #expect(all.results.map(\.name) == ["Sales"] && all.results.first is BusinessExcursion)
        trip.name = "Audit"
        try writer.save()
        #expect(await allChanges.wait(for: 2))
        #expect(all.results.map(\.name) == ["Audit"])
        #expect(await personalChanges.staysQuiet())
        writer.insert(PersonalExcursion(name: "Reunion", destination: "Porto", reason: .family))
        try writer.save()
        #expect(await personalChanges.wait(for: 1))
        #expect(personal.results.map(\.reason) == [.family])
        #expect(await allChanges.wait(for: 3))
        #expect(all.results.map(\.name) == ["Audit", "Reunion"])
    }

    @Test(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
    func anotherPostgresInstancesSaveOfASubclassReachesAnObserverOfTheBaseClass() async throws {
        let database = PostgresTestDatabase()
        let here = try ModelContainer(for: Schema(excursionTypes), configurations: [database.configuration(instance: 1)])
        let there = try ModelContainer(for: Schema(excursionTypes), configurations: [database.configuration(instance: 2)])
        let observer = try ResultsObserver<Excursion, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: here)
        let changes = ChangeCounter { _ = observer.results }
        let writer = ModelContext(there)
        let trip = ConferenceExcursion(name: "WWDC", destination: "Cupertino", perdiem: 200, conference: "WWDC")
        writer.insert(trip)
        try writer.save()
        #expect(await changes.wait())
        #expect((observer.results.first as? ConferenceExcursion)?.conference == "WWDC")
        trip.conference = "WWDC26"
        try writer.save()
        #expect(await changes.wait(for: 2))
        #expect((observer.results.first as? ConferenceExcursion)?.conference == "WWDC26")
    }

    @Test func aHistoryObserverOfTheBaseClassCountsSavesOfItsSubclassesAndOneOfASubclassNotItsSiblings() async throws {
        let container = try inMemoryContainer(for: Excursion.self, BusinessExcursion.self, PersonalExcursion.self)
        let trips = try HistoryObserver(observedModels: [Excursion.self], modelContainer: container)
        let business = try HistoryObserver(observedModels: [BusinessExcursion.self], modelContainer: container)
        let tripChanges = ChangeCounter { _ = trips.eventCounter }
        let businessChanges = ChangeCounter { _ = business.eventCounter }
        let context = ModelContext(container)
        context.insert(PersonalExcursion(name: "Reunion", destination: "Porto", reason: .reunion))
        try context.save()
        #expect(await tripChanges.wait())
        #expect(await businessChanges.staysQuiet())
        context.insert(BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120))
        try context.save()
        #expect(await businessChanges.wait())
        #expect(await tripChanges.wait(for: 2))
        #expect(trips.eventCounter == 2 && business.eventCounter == 1)
    }
}

@Model class Gadget {
    var name: String = ""
    init() {}
}

// As in SwiftData, the macro's `required init` is a designated initializer: a subclass declares
// its own initializers, whose inherited ones it no longer gets.
@Model final class Phone: Gadget {
    var size: Int = 6
    override init() { super.init() }
}

@Model final class Tablet: Gadget {
    var size: String = "large"
    override init() { super.init() }
}

@Model final class Watch: Gadget {
    var size: Int = 1
    override init() { super.init() }
}

@Suite struct HierarchyColumnTests {
    @Test func subclassesDeclaringOnePropertyAlikeShareItsColumn() throws {
        let context = ModelContext(try inMemoryContainer(for: Gadget.self, Phone.self, Watch.self))
        context.insert(Phone())
        context.insert(Watch())
        try context.save()
        let sizes = try ModelContext(context.container).fetch(FetchDescriptor<Gadget>()).compactMap { ($0 as? Phone)?.size ?? ($0 as? Watch)?.size }
        #expect(sizes.sorted() == [1, 6])
    }

    @Test func subclassesDeclaringOnePropertyOfTwoTypesGetAClearError() {
        #expect {
            try inMemoryContainer(for: Gadget.self, Phone.self, Tablet.self)
        } throws: { error in
            "\(error)".contains("size is also a property of") && "\(error)".contains("share one table")
        }
    }
}

@Model class IndexedBase {
    #Index<IndexedBase>([\.name])
    #Unique<IndexedBase>([\.name, \.serial])
    var serial: Int = 0
    var name: String = ""
    init() {}
}

@Model final class IndexedSub: IndexedBase {
    #Index<IndexedSub>([\.rank])
    #Unique<IndexedSub>([\.code])
    var rank: Int = 0
    var code: String = UUID().uuidString
    override init() { super.init() }
}

@Suite struct HierarchyIndexTests {
    @Test(arguments: StoreKind.sharedStores)
    func theIndexesAndUniqueConstraintsOfEveryClassConstrainTheSharedTable(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: IndexedBase.self, IndexedSub.self)
        let context = ModelContext(container)
        let first = IndexedSub()
        first.name = "a"
        context.insert(first)
        try context.save()
        let again = IndexedSub()  // the same name and serial: #Unique of the root class upserts it
        again.name = "a"
        again.rank = 5
        context.insert(again)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<IndexedSub>()).map(\.rank) == [5])
        let indexes = try kind == .postgres
            ? store.sql("SELECT indexname FROM pg_indexes WHERE tablename = 'IndexedBase' ORDER BY 1")
            : store.sql("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'IndexedBase' AND name NOT LIKE 'sqlite_%' ORDER BY 1")
        let names = indexes.map { $0[0] }
        #expect(names.contains { $0.contains("rank") && $0.hasSuffix("_index") })
        #expect(names.contains { $0.contains("code") && $0.hasSuffix("_unique") })
        #expect(names.contains { $0.contains("name_serial") && $0.hasSuffix("_unique") })
    }
}

/// A class hierarchy is one table, so its classes live in one store whatever the
/// configurations list.
@Suite struct HierarchyPlacementTests {
    @Test func aSubclassListedInAnotherConfigurationIsStoredWithItsRoot() throws {
        let first = try TemporaryStore()
        let second = try TemporaryStore()
        let trips = ModelConfiguration("Trips", schema: Schema([Excursion.self]), url: first.url)
        let business = ModelConfiguration("Business", schema: Schema([BusinessExcursion.self]), url: second.url)
        let container = try ModelContainer(for: Excursion.self, BusinessExcursion.self, configurations: trips, business)
        let context = ModelContext(container)
        context.insert(BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Excursion>()).map { $0 is BusinessExcursion } == [true])
        #expect(try first.sql("SELECT \"_type\" FROM \"Excursion\"") == [["BusinessExcursion"]])
    }
}

import Foundation
import ModelKit
import Testing

@Suite struct ClassInheritanceTests {
    /// A container on `store` holding a trip of each class.
    private func seeded(_ store: TestStore) throws -> (ModelContainer, ModelContext) {
        let container = try store.container(forTypes: excursionTypes)
        let context = ModelContext(container)
        context.insert(Excursion(name: "Weekend", destination: "Lyon"))
        context.insert(BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120))
        context.insert(PersonalExcursion(name: "Reunion", destination: "Porto", reason: .reunion))
        context.insert(ConferenceExcursion(name: "WWDC", destination: "Cupertino", perdiem: 200, conference: "WWDC"))
        try context.save()
        return (container, context)
    }

    @Test(arguments: StoreKind.withPostgres)
    func aFetchOfTheBaseClassReturnsEveryRowAsItsOwnClass(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, _) = try seeded(store)
        let fresh = ModelContext(container)
        let trips = try fresh.fetch(FetchDescriptor<Excursion>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Reunion", "Sales", "WWDC", "Weekend"])
        #expect(trips.map { String(describing: type(of: $0)) } == ["PersonalExcursion", "BusinessExcursion", "ConferenceExcursion", "Excursion"])
        let personal = try #require(trips[0] as? PersonalExcursion)
        #expect(personal.reason == .reunion && personal.destination == "Porto")
        let conference = try #require(trips[2] as? ConferenceExcursion)
        #expect(conference.conference == "WWDC" && conference.perdiem == 200)
        #expect(conference.persistentModelID.entityName == "ConferenceExcursion")
    }

    @Test(arguments: StoreKind.withPostgres)
    func aFetchOfASubclassReturnsOnlyItAndItsSubclasses(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, _) = try seeded(store)
        let fresh = ModelContext(container)
        let business = try fresh.fetch(FetchDescriptor<BusinessExcursion>(sortBy: [SortDescriptor(\.perdiem, order: .reverse)]))
        #expect(business.map(\.name) == ["WWDC", "Sales"])
        #expect(try fresh.fetchCount(FetchDescriptor<PersonalExcursion>()) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<Excursion>()) == 4)
        let rich = try fresh.fetch(FetchDescriptor<BusinessExcursion>(predicate: #Predicate { $0.perdiem > 150 }))
        #expect(rich.map(\.name) == ["WWDC"])
        let named = try fresh.fetch(FetchDescriptor<BusinessExcursion>(predicate: #Predicate { $0.name == "Sales" }))
        #expect(named.map(\.perdiem) == [120])
    }

    @Test(arguments: StoreKind.withPostgres)
    func oneRowIsOneInstanceWhicheverClassItIsFetchedAs(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, _) = try seeded(store)
        let fresh = ModelContext(container)
        let asBase = try fresh.fetch(FetchDescriptor<Excursion>(predicate: #Predicate { $0.name == "Sales" }))
        let asSubclass = try fresh.fetch(FetchDescriptor<BusinessExcursion>())
        #expect(asBase.count == 1 && asSubclass.contains { $0 === asBase[0] })
        #expect(fresh.model(for: asBase[0].persistentModelID) === asBase[0])
    }

    @Test(arguments: StoreKind.withPostgres)
    func aSubclassSavesItsOwnAndInheritedProperties(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, context) = try seeded(store)
        let sales = try #require(try context.fetch(FetchDescriptor<BusinessExcursion>(predicate: #Predicate { $0.name == "Sales" })).first)
        sales.perdiem = 140
        sales.destination = "Hamburg"
        try context.save()
        let fresh = ModelContext(container)
        let reread = try #require(try fresh.fetch(FetchDescriptor<Excursion>(predicate: #Predicate { $0.destination == "Hamburg" })).first as? BusinessExcursion)
        #expect(reread.perdiem == 140 && reread.name == "Sales")
    }

    @Test(arguments: StoreKind.withPostgres)
    func relationshipsToTheBaseClassHoldSubclassesWithInversesAndDeleteRules(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: excursionTypes + [ExcursionStop.self, Lodging.self, Expense.self])
        let context = ModelContext(container)
        let business = BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120)
        context.insert(business)
        let stop = ExcursionStop(title: "Museum", excursion: business)
        context.insert(stop)
        let lodging = Lodging(placeName: "Hotel")
        business.lodging = lodging
        let expense = Expense(amount: 30)
        business.expenses.append(expense)
        #expect(business.stops.map(\.title) == ["Museum"], "the inverse of a to-one set at init")
        #expect(lodging.excursion === business && expense.excursion === business)
        try context.save()

        let fresh = ModelContext(container)
        let stops = try fresh.fetch(FetchDescriptor<ExcursionStop>())
        let owner = try #require(stops.first?.excursion as? BusinessExcursion)
        #expect(owner.perdiem == 120 && owner.lodging?.placeName == "Hotel" && owner.expenses.map(\.amount) == [30])
        fresh.delete(owner)
        try fresh.save()
        #expect(try fresh.fetchCount(FetchDescriptor<ExcursionStop>()) == 0, "cascade from an inherited relationship")
        #expect(try fresh.fetchCount(FetchDescriptor<Lodging>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Expense>()) == 0, "cascade from the subclass's own relationship")
    }

    /// Stores whose tables the test can read back (the in-memory store's connection is its own).
    @Test(arguments: StoreKind.sharedStores)
    func theHierarchySharesOneTableWithATypeColumn(kind: StoreKind) throws {
        let store = try TestStore(kind)
        _ = try seeded(store)
        #expect(try store.tableExists("Excursion"))
        #expect(try !store.tableExists("BusinessExcursion"))
        let types = try store.sql("SELECT \"_type\" FROM \"Excursion\" ORDER BY \"_pk\"").map { $0[0] }
        #expect(types == ["Excursion", "BusinessExcursion", "PersonalExcursion", "ConferenceExcursion"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func aBatchDeleteOfASubclassLeavesTheOthersAndRecordsEachClass(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let (container, context) = try seeded(store)
        try context.delete(model: BusinessExcursion.self, where: #Predicate { $0.perdiem < 150 })
        #expect(try context.fetch(FetchDescriptor<Excursion>()).map(\.name).sorted() == ["Reunion", "WWDC", "Weekend"])
        try context.delete(model: Excursion.self, includeSubclasses: false)
        #expect(try context.fetch(FetchDescriptor<Excursion>()).map(\.name).sorted() == ["Reunion", "WWDC"])
        try context.delete(model: Excursion.self)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Excursion>()) == 0)
    }
}

/// Many rows of several classes in one save: the multi-row inserts PostgreSQL batches, and the
/// keys the hierarchy's classes share.
@Suite struct HierarchyBulkTests {
    @Test(arguments: StoreKind.withPostgres)
    func manyRowsOfEachClassInOneSaveKeepTheirClassesAndDistinctKeys(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: excursionTypes)
        let context = ModelContext(container)
        for i in 0..<60 {
            switch i % 3 {
            case 0: context.insert(Excursion(name: "base \(i)", destination: "x"))
            case 1: context.insert(BusinessExcursion(name: "business \(i)", destination: "x", perdiem: Double(i)))
            default: context.insert(PersonalExcursion(name: "personal \(i)", destination: "x", reason: .wellness))
            }
        }
        try context.save()
        let fresh = ModelContext(container)
        let all = try fresh.fetch(FetchDescriptor<Excursion>())
        #expect(all.count == 60 && Set(all.map(\.persistentModelID)).count == 60)
        #expect(all.filter { $0 is BusinessExcursion }.count == 20 && all.filter { $0 is PersonalExcursion }.count == 20)
        #expect(try fresh.fetchIdentifiers(FetchDescriptor<BusinessExcursion>()).count == 20)
        #expect(try fresh.fetch(FetchDescriptor<BusinessExcursion>(), batchSize: 7).map(\.perdiem).reduce(0, +) == 590)
    }
}

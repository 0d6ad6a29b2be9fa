import Foundation
import Testing

@testable import ModelKit

/// `is` and `as?` in predicates over a class hierarchy, in SQL and in their results.
@Suite struct TypePredicateTests {
    private let schema = Schema(excursionTypes + [ExcursionStop.self])

    private func sql<T: PersistentModel>(_ predicate: Predicate<T>) throws -> String {
        try PredicateSQL.condition(for: predicate, entity: schema.entity(for: T.self)!).text
    }

    @Test func aTypeCheckReadsTheTypeColumnOfTheClassAndItsSubclasses() throws {
        #expect(try sql(#Predicate<Excursion> { $0 is BusinessExcursion })
            == #"("Excursion"."_type" IN ('BusinessExcursion', 'ConferenceExcursion'))"#)
        #expect(try sql(#Predicate<BusinessExcursion> { $0 is ConferenceExcursion })
            == #"("BusinessExcursion"."_type" IN ('ConferenceExcursion'))"#)
        #expect(try sql(#Predicate<ExcursionStop> { $0.excursion is PersonalExcursion }).contains(#""_type" FROM "Excursion""#))
    }

    @Test func aCastReadsTheSubclassColumnOfTheSameRow() throws {
        let text = try sql(#Predicate<Excursion> { ($0 as? BusinessExcursion)?.perdiem ?? 0 > 100 })
        #expect(text.contains(#""Excursion"."perdiem""#), "\(text)")
    }

    @Test(arguments: StoreKind.withPostgres)
    func typePredicatesFilterByClass(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(forTypes: excursionTypes + [ExcursionStop.self])
        let context = ModelContext(container)
        let trips: [Excursion] = [
            Excursion(name: "Weekend", destination: "Lyon"),
            BusinessExcursion(name: "Sales", destination: "Berlin", perdiem: 120),
            PersonalExcursion(name: "Reunion", destination: "Porto", reason: .reunion),
            ConferenceExcursion(name: "WWDC", destination: "Cupertino", perdiem: 200, conference: "WWDC"),
        ]
        for trip in trips {
            context.insert(trip)
            context.insert(ExcursionStop(title: "Stop of \(trip.name)", excursion: trip))
        }
        try context.save()
        let fresh = ModelContext(container)
        func names(_ predicate: Predicate<Excursion>) throws -> [String] {
            try fresh.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(try names(#Predicate { $0 is BusinessExcursion }) == ["Sales", "WWDC"])
        #expect(try names(#Predicate { $0 is PersonalExcursion || $0.name == "Weekend" }) == ["Reunion", "Weekend"])
        #expect(try names(#Predicate { !($0 is BusinessExcursion) }) == ["Reunion", "Weekend"])
        #expect(try names(#Predicate { $0 is Excursion }).count == 4)
        #expect(try names(#Predicate { ($0 as? BusinessExcursion)?.perdiem ?? 0 > 150 }) == ["WWDC"])
        let stops = try fresh.fetch(FetchDescriptor<ExcursionStop>(predicate: #Predicate { $0.excursion is PersonalExcursion }))
        #expect(stops.map(\.title) == ["Stop of Reunion"])
    }
}

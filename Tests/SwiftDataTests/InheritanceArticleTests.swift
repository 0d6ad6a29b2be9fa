import Foundation
import SwiftData
import Testing

// The models of Apple's "Adopting inheritance in SwiftData" and the queries of its WWDC25
// session, compiled against `import SwiftData` alone. The DocC article *Class inheritance* shows
// this code verbatim.
enum SampleTrips {
    @Model class LivingAccommodation {
        var address: String
        var placeName: String
        var trip: Trip?

        init(address: String, placeName: String) {
            self.address = address
            self.placeName = placeName
        }
    }

    @Model class BucketListItem {
        var title: String
        var details: String
        var trip: Trip?

        init(title: String, details: String) {
            self.title = title
            self.details = details
        }
    }

    @Model class Trip {
        @Attribute(.preserveValueOnDeletion)
        var name: String
        var destination: String

        @Attribute(.preserveValueOnDeletion)
        var startDate: Date
        @Attribute(.preserveValueOnDeletion)
        var endDate: Date

        @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
        var bucketList: [BucketListItem] = [BucketListItem]()

        @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
        var livingAccommodation: LivingAccommodation?

        init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }

    @Model class BusinessTrip: Trip {
        var perdiem: Double = 0.0

        init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture, perdiem: Double) {
            self.perdiem = perdiem
            super.init(name: name, destination: destination, startDate: startDate, endDate: endDate)
        }
    }

    @Model class PersonalTrip: Trip {
        enum Reason: String, CaseIterable, Codable, Identifiable {
            case family
            case reunion
            case wellness
            case unknown

            var id: Self { self }
        }

        var reason: Reason

        init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture, reason: Reason) {
            self.reason = reason
            super.init(name: name, destination: destination, startDate: startDate, endDate: endDate)
        }
    }

    enum Segment { case all, personal, business }
}

@Suite struct InheritanceArticleTests {
    typealias Trip = SampleTrips.Trip
    typealias BusinessTrip = SampleTrips.BusinessTrip
    typealias PersonalTrip = SampleTrips.PersonalTrip

    /// The article's container: the base class and its subclasses in the schema.
    @MainActor private func sampleContainer() throws -> ModelContainer {
        let container = try ModelContainer(
            for: Trip.self, BusinessTrip.self, PersonalTrip.self, configurations: .init(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.insert(Trip(name: "Weekend", destination: "Lyon"))
        context.insert(BusinessTrip(name: "Sales Summit", destination: "Berlin", perdiem: 120))
        context.insert(PersonalTrip(name: "Family Visit", destination: "Porto", reason: .family))
        context.insert(PersonalTrip(name: "Spa Week", destination: "Baden", reason: .wellness))
        try context.save()
        return container
    }

    @MainActor @Test func aDeepSearchReturnsEveryTripAndAShallowSearchOneClass() throws {
        let container = try sampleContainer()
        let context = container.mainContext
        for (segment, expected) in [
            (SampleTrips.Segment.all, ["Family Visit", "Sales Summit", "Spa Week", "Weekend"]),
            (.personal, ["Family Visit", "Spa Week"]),
            (.business, ["Sales Summit"]),
        ] {
            let classPredicate: Predicate<Trip>? = {
                switch segment {
                case .personal: return #Predicate { $0 is PersonalTrip }
                case .business: return #Predicate { $0 is BusinessTrip }
                default: return nil
                }
            }()
            let trips = try context.fetch(FetchDescriptor<Trip>(predicate: classPredicate, sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == expected)
        }
    }

    @MainActor @Test func aPredicateCombinesTheClassWithASearchAndASubclassProperty() throws {
        let container = try sampleContainer()
        let context = container.mainContext
        let searchText = "a"
        // The session combines its predicates with `evaluate(_:)`, which this toolchain's
        // `#Predicate` does not take: the same predicate, written out.
        let fullPredicate = #Predicate<Trip> {
            $0 is PersonalTrip
                && (searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText))
        }
        #expect(try context.fetch(FetchDescriptor(predicate: fullPredicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
            == ["Family Visit", "Spa Week"])
        let reason = PersonalTrip.Reason.family
        let family = #Predicate<Trip> { ($0 as? PersonalTrip)?.reason == reason }
        #expect(try context.fetch(FetchDescriptor(predicate: family)).map(\.name) == ["Family Visit"])
        let onPerdiem = try context.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.perdiem > 100 }))
        #expect(onPerdiem.map(\.destination) == ["Berlin"])
    }

    @MainActor @Test func deletingASubclassKeepsItsPreservedValuesInTheHistory() throws {
        let container = try sampleContainer()
        let context = container.mainContext
        let summit = try #require(try context.fetch(FetchDescriptor<BusinessTrip>()).first)
        context.delete(summit)
        try context.save()
        let deletes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).flatMap(\.changes).compactMap { change in
            if case .delete(let deletion as DefaultHistoryDelete<BusinessTrip>) = change { return deletion } else { return nil }
        }
        #expect(deletes.map { $0.tombstone[\.name] as? String } == ["Sales Summit"])
    }
}

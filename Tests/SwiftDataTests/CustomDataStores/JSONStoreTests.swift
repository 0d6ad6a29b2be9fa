import Foundation
import SwiftData
import Testing

/// WWDC24's JSON store, used as the session uses it: a container of its configuration, and
/// contexts that insert, fetch, edit and delete as with any store.
@Suite struct JSONStoreTests {
    /// A JSON file in a directory of its own, removed afterwards.
    final class StoreFile {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("JSONStoreTests-\(UUID().uuidString)")
        var url: URL { directory.appendingPathComponent("trips.json") }

        init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: directory) }

        func container() throws -> ModelContainer {
            let schema = Schema([JSONTrip.self, JSONAccommodation.self, JSONBucketListItem.self])
            return try ModelContainer(for: schema, configurations: JSONStoreConfiguration(name: "Trips", schema: schema, fileURL: url))
        }
    }

    static let day: TimeInterval = 86_400

    static func trip(_ name: String, _ destination: String, startsIn days: Double) -> JSONTrip {
        JSONTrip(name: name, destination: destination, startDate: Date(timeIntervalSince1970: days * day), endDate: Date(timeIntervalSince1970: (days + 7) * day))
    }

    @Test func insertsAndFetchesWithPredicatesAndSortsTheStoreLeavesToTheContext() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        for (name, destination, days) in [("Summer", "Lisbon", 200.0), ("Spring", "Kyoto", 90), ("Winter", "Oslo", 10)] {
            context.insert(Self.trip(name, destination, startsIn: days))
        }
        try context.save()
        #expect(FileManager.default.fileExists(atPath: file.url.path))

        let fresh = ModelContext(try file.container())
        let sorted = try fresh.fetch(FetchDescriptor<JSONTrip>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(sorted.map(\.name) == ["Winter", "Spring", "Summer"])
        let later = Date(timeIntervalSince1970: 50 * Self.day)
        var descriptor = FetchDescriptor<JSONTrip>(predicate: #Predicate { $0.startDate > later }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        #expect(try fresh.fetch(descriptor).map(\.name) == ["Summer", "Spring"])
        descriptor.fetchLimit = 1
        descriptor.fetchOffset = 1
        #expect(try fresh.fetch(descriptor).map(\.name) == ["Spring"])
        #expect(try fresh.fetchCount(FetchDescriptor<JSONTrip>(predicate: #Predicate { $0.destination.contains("sl") })) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<JSONTrip>()) == 3)
        let identifiers = try fresh.fetchIdentifiers(FetchDescriptor<JSONTrip>())
        #expect(Set(identifiers) == Set(sorted.map(\.persistentModelID)))
        #expect(identifiers.allSatisfy { !$0.isTemporary && $0.storeIdentifier == "trips.json" })
    }

    @Test func editsAndDeletesReachTheFileAndSurviveReopening() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        let summer = Self.trip("Summer", "Lisbon", startsIn: 200)
        let winter = Self.trip("Winter", "Oslo", startsIn: 10)
        context.insert(summer)
        context.insert(winter)
        try context.save()
        let summerID = summer.persistentModelID

        summer.destination = "Porto"
        context.delete(winter)
        try context.save()
        #expect(!context.hasChanges)

        let reopened = ModelContext(try file.container())
        let trips = try reopened.fetch(FetchDescriptor<JSONTrip>())
        #expect(trips.map(\.destination) == ["Porto"])
        #expect(trips.first?.persistentModelID == summerID)
        #expect(trips.first?.startDate == summer.startDate)
        #expect((reopened.model(for: summerID) as? JSONTrip)?.name == "Summer")
    }

    @Test func relationshipsBetweenNewModelsCrossOneSave() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        let trip = Self.trip("Summer", "Lisbon", startsIn: 200)
        context.insert(trip)
        trip.livingAccommodation = JSONAccommodation(address: "Rua Augusta 1", placeName: "Casa")
        trip.bucketList = [JSONBucketListItem(title: "Tram 28"), JSONBucketListItem(title: "Pastéis", isInPlan: true)]
        try context.save()

        let reopened = ModelContext(try file.container())
        let read = try #require(try reopened.fetch(FetchDescriptor<JSONTrip>()).first)
        #expect(read.livingAccommodation?.placeName == "Casa")
        #expect(read.livingAccommodation?.trip === read)
        #expect(Set(read.bucketList.map(\.title)) == ["Tram 28", "Pastéis"])
        let planned = try reopened.fetch(FetchDescriptor<JSONBucketListItem>(predicate: #Predicate { $0.isInPlan }))
        #expect(planned.map(\.title) == ["Pastéis"])
        #expect(planned.first?.trip === read)
        #expect(try reopened.fetchCount(FetchDescriptor<JSONAccommodation>()) == 1)
    }

    @Test func unsavedChangesCountInFetchesOfTheStoresModels() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        context.insert(Self.trip("Summer", "Lisbon", startsIn: 200))
        try context.save()
        context.insert(Self.trip("Autumn", "Rome", startsIn: 300))
        let summer = try #require(try context.fetch(FetchDescriptor<JSONTrip>(predicate: #Predicate { $0.name == "Summer" })).first)
        summer.destination = "Faro"
        let names = try context.fetch(FetchDescriptor<JSONTrip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Autumn", "Summer"])
        #expect(try context.fetch(FetchDescriptor<JSONTrip>(predicate: #Predicate { $0.destination == "Faro" })).count == 1)
        context.delete(summer)
        #expect(try context.fetch(FetchDescriptor<JSONTrip>()).map(\.name) == ["Autumn"])
    }

    @Test func aFailingStoreThrowsItsErrorAndTheContextKeepsItsChanges() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        context.insert(Self.trip("Summer", "Lisbon", startsIn: 200))
        try context.save()
        // The file becomes something the store cannot read: its next save fails.
        try Data("not json".utf8).write(to: file.url)
        #expect(throws: DecodingError.self) { try ModelContext(try file.container()).fetch(FetchDescriptor<JSONTrip>()) }
        let autumn = Self.trip("Autumn", "Rome", startsIn: 300)
        context.insert(autumn)
        #expect(throws: DecodingError.self) { try context.save() }
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        #expect(autumn.persistentModelID.isTemporary)

        try FileManager.default.removeItem(at: file.url)
        try context.save()
        #expect(!context.hasChanges && !autumn.persistentModelID.isTemporary)
        #expect(try ModelContext(try file.container()).fetch(FetchDescriptor<JSONTrip>()).map(\.name) == ["Autumn"])
    }

    @Test func batchDeletesRunInMemoryForAStoreThatDoesNotBatch() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        for (name, days) in [("Summer", 200.0), ("Spring", 90), ("Winter", 10)] {
            context.insert(Self.trip(name, "Somewhere", startsIn: days))
        }
        try context.save()
        let winter = try #require(try context.fetch(FetchDescriptor<JSONTrip>(predicate: #Predicate { $0.name == "Winter" })).first)
        let soon = Date(timeIntervalSince1970: 100 * Self.day)
        try context.delete(model: JSONTrip.self, where: #Predicate { $0.startDate < soon })
        #expect(winter.isDeleted)
        #expect(try ModelContext(try file.container()).fetch(FetchDescriptor<JSONTrip>()).map(\.name) == ["Summer"])
    }

    @Test func snapshotsAreCodableAndIdentifiersEqualByKey() throws {
        let file = try StoreFile()
        let context = ModelContext(try file.container())
        let trip = Self.trip("Summer", "Lisbon", startsIn: 200)
        context.insert(trip)
        try context.save()
        let data = try Data(contentsOf: file.url)
        let snapshots = try JSONDecoder.iso8601.decode([DefaultSnapshot].self, from: data)
        #expect(snapshots.map(\.persistentIdentifier) == [trip.persistentModelID])
        let again = try JSONDecoder.iso8601.decode([DefaultSnapshot].self, from: JSONEncoder.iso8601.encode(snapshots))
        #expect(again.map(\.persistentIdentifier) == [trip.persistentModelID])

        let key = UUID()
        let one = try PersistentIdentifier.identifier(for: "s", entityName: "JSONTrip", primaryKey: key)
        let two = try PersistentIdentifier.identifier(for: "s", entityName: "JSONTrip", primaryKey: key)
        #expect(one == two && one.hashValue == two.hashValue)
        #expect(one != (try PersistentIdentifier.identifier(for: "s", entityName: "JSONTrip", primaryKey: UUID())))
        #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(one)) == one)
        let named = try PersistentIdentifier.identifier(for: "s", entityName: "JSONTrip", primaryKey: "lisbon-2026")
        #expect(named.description == "JSONTrip/lisbon-2026")
        #expect(named != (try PersistentIdentifier.identifier(for: "s", entityName: "JSONTrip", primaryKey: "porto")))
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension JSONEncoder {
    static var iso8601: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

import Foundation
import Testing

@testable import ModelKit

struct Dimensions: Codable, Hashable {
    var width: Double
    var height: Double
}

@Model final class Listing {
    var title: String
    var price: Int
    var rating: Double
    var listedAt: Date
    var summary: String
    var photo: Data
    var note: String?
    var size: Dimensions
    var owner: Seller?

    init(title: String, price: Int, summary: String = "long text", note: String? = "a note") {
        self.title = title
        self.price = price
        rating = 4.5
        listedAt = Date(timeIntervalSinceReferenceDate: 1_000)
        self.summary = summary
        photo = Data([1, 2, 3])
        self.note = note
        size = Dimensions(width: 2, height: 3)
    }
}

@Model final class Seller {
    var name: String
    @Relationship(inverse: \Listing.owner) var listings: [Listing] = []
    init(name: String) { self.name = name }
}

enum ShipmentPriority: Int, Codable {
    case low, high
}

@Model final class Shipment {
    var priority: ShipmentPriority
    var weight: Int
    var label: String
    init(priority: ShipmentPriority, weight: Int, label: String) {
        self.priority = priority
        self.weight = weight
        self.label = label
    }
}

/// `FetchDescriptor.propertiesToFetch`: a fetch reads the named properties only; the others load
/// on first read, and nothing else changes.
@Suite struct PartialFetchTests {
    func descriptor(_ keyPaths: [PartialKeyPath<Listing>], sortBy: [SortDescriptor<Listing>] = [SortDescriptor(\.price)])
        -> FetchDescriptor<Listing>
    {
        var descriptor = FetchDescriptor<Listing>(sortBy: sortBy)
        descriptor.propertiesToFetch = keyPaths
        return descriptor
    }

    func seeded(_ kind: StoreKind) throws -> (TestStore, ModelContainer) {
        let store = try TestStore(kind)
        let container = try store.container(for: Listing.self, Seller.self)
        let context = ModelContext(container)
        let seller = Seller(name: "Ada")
        context.insert(seller)
        for index in 0..<3 {
            let listing = Listing(title: "t\(index)", price: index * 10)
            context.insert(listing)
            listing.owner = seller
        }
        try context.save()
        return (store, container)
    }

    @Test(arguments: StoreKind.withPostgres) func onlyTheNamedPropertiesAreReadAndTheOthersLoadOnFirstRead(kind: StoreKind) throws
    {
        let (store, container) = try seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let listings = try context.fetch(descriptor([\.title]))
        #expect(listings.map(\.title) == ["t0", "t1", "t2"])
        let fetch = try #require(statements.first { $0.contains("FROM \"Listing\"") })
        #expect(!fetch.contains("\"summary\""))
        #expect(!fetch.contains("\"rating\""))
        #expect(!fetch.contains("\"note\""))
        #expect(fetch.contains("\"size\""), "a Codable value has no placeholder, so it is read")
        #expect(fetch.contains("\"owner\""), "a to-one's key is read, for its fault")
        statements.removeAll()
        #expect(listings[1].price == 10, "the sort property was read")
        #expect(statements.isEmpty)
        #expect(listings[1].summary == "long text")
        #expect(statements.count == 1, "the first read loads every property left out, in one statement")
        #expect(listings[1].rating == 4.5 && listings[1].note == "a note" && listings[1].photo == Data([1, 2, 3]))
        #expect(listings[1].listedAt == Date(timeIntervalSinceReferenceDate: 1_000))
        #expect(statements.count == 1)
        #expect(listings[1].owner?.name == "Ada")
        #expect(listings[0].summary == "long text")
    }

    @Test(arguments: StoreKind.withPostgres) func writingAPartlyFetchedModelLosesNoStoredValue(kind: StoreKind) throws {
        let (store, container) = try seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        let listing = try #require(try context.fetch(descriptor([\.title])).first)
        listing.summary = "edited"
        listing.title = "renamed"
        try context.save()
        #expect(listing.summary == "edited")
        let fresh = try #require(try ModelContext(container).fetch(descriptor([])).first)
        #expect(fresh.title == "renamed" && fresh.summary == "edited")
        #expect(fresh.rating == 4.5 && fresh.note == "a note" && fresh.photo == Data([1, 2, 3]) && fresh.price == 0)
    }

    @Test(arguments: StoreKind.withPostgres) func aRegisteredModelKeepsItsValuesAndUnsavedChanges(kind: StoreKind) throws {
        let (store, container) = try seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        let full = try context.fetch(descriptor([]))
        full[0].summary = "unsaved"
        let partial = try context.fetch(descriptor([\.title]))
        #expect(partial.map(ObjectIdentifier.init) == full.map(ObjectIdentifier.init), "the same instances")
        #expect(partial[0].summary == "unsaved")
        #expect(partial[1].summary == "long text")
    }

    @Test(arguments: StoreKind.sharedStores) func aPropertyLeftOutLoadsWhatAnotherContextSavedSince(kind: StoreKind) throws {
        let (store, container) = try seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        let listing = try #require(try context.fetch(descriptor([\.title])).first)
        let other = ModelContext(container)
        let same = try #require(try other.fetch(descriptor([])).first)
        same.summary = "changed elsewhere"
        same.title = "retitled elsewhere"
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<Listing>())  // a read merges what was heard
        #expect(listing.title == "retitled elsewhere")
        #expect(listing.summary == "changed elsewhere")
    }

    @Test func aRollbackOfAPartlyFetchedModelRestoresTheStoredValues() throws {
        let (store, container) = try seeded(.inMemory)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        let listing = try #require(try context.fetch(descriptor([\.title])).first)
        listing.note = nil
        context.rollback()
        #expect(listing.note == "a note")
        #expect(listing.summary == "long text")
    }

    @Test func aPartialFetchSeesUnsavedInsertsAndChanges() throws {
        let (store, container) = try seeded(.inMemory)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        context.insert(Listing(title: "new", price: 5))
        let changed = try #require(try context.fetch(descriptor([\.title])).last)
        changed.price = -1
        let listings = try context.fetch(descriptor([\.title]))
        #expect(listings.map(\.title) == ["t2", "t0", "new", "t1"])
        #expect(listings.map(\.summary) == ["long text", "long text", "long text", "long text"])
    }

    @Test func aModelDeletedBeforeItsPropertiesLoadIsDeleted() throws {
        let (store, container) = try seeded(.inMemory)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        let listing = try #require(try context.fetch(descriptor([\.title])).first)
        try context.delete(model: Listing.self, where: #Predicate { $0.price == 0 })
        try context.save()
        _ = listing.summary
        #expect(try context.fetchCount(FetchDescriptor<Listing>()) == 2)
    }

    @Test func aKeyPathThatIsNoPersistedPropertyIsAnError() throws {
        let (store, container) = try seeded(.inMemory)
        defer { withExtendedLifetime(store) {} }
        #expect(throws: ModelKitError.self) {
            try ModelContext(container).fetch(descriptor([\Listing.title.count]))
        }
    }

    /// The properties a partial fetch reads, optional or not, hold their stored values at once (a
    /// row of a partial fetch reads its own columns past the placeholders it hands from memory):
    /// reading them runs no statement, and reading one left out loads them all.
    @Test(arguments: StoreKind.withPostgres) func theReadPropertiesHoldTheirStoredValuesWithoutAStatement(kind: StoreKind) throws {
        let (store, container) = try seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let writer = ModelContext(container)
        let first = try #require(try writer.fetch(descriptor([])).first)
        first.note = nil
        try writer.save()
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let listings = try context.fetch(descriptor([\.note, \.rating, \.listedAt]))
        statements.removeAll()
        #expect(listings.map(\.note) == [nil, "a note", "a note"])
        #expect(listings.map(\.rating) == [4.5, 4.5, 4.5])
        #expect(listings.map(\.listedAt) == Array(repeating: Date(timeIntervalSinceReferenceDate: 1_000), count: 3))
        #expect(listings.map(\.price) == [0, 10, 20], "the sort property was read")
        #expect(statements.isEmpty)
        #expect(listings[2].title == "t2")
        #expect(statements.count == 1, "a property left out loads on first read")
    }

    @Test func theSelectLeavesOutThePropertiesThatHoldPlaceholders() throws {
        let entity = Schema([Listing.self, Seller.self]).entities.first { $0.name == "Listing" }!
        let partial = try #require(PartialFetch(entity, fetching: [0]))
        #expect(partial.selectClause == #"SELECT "_pk", "title", "size", "owner" FROM "Listing""#)
        #expect(partial.unfetched == [1, 2, 3, 4, 5, 6])
        #expect(partial.placeholders == [nil, .integer(0), .real(0), .real(0), .text(""), .blob(Data()), .null, nil, nil])
        #expect(partial.resultColumns == [1, -1, -1, -1, -1, -1, -1, 2, 3])
        #expect(PartialFetch(entity, fetching: [0, 1, 2, 3, 4, 5, 6]) == nil, "every column with a placeholder is read")
    }

    /// A property whose type decodes through its codec (an enum) takes its placeholder from the
    /// row too, and its stored value on first read, though the select leaves its column out.
    @Test(arguments: StoreKind.withPostgres) func aLeftOutPropertyOfAnyTypeDecodesItsPlaceholderAndLoadsItsValue(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shipment.self)
        let writer = ModelContext(container)
        writer.insert(Shipment(priority: .high, weight: 3, label: "fragile"))
        try writer.save()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Shipment>()
        descriptor.propertiesToFetch = [\.weight]
        let shipment = try #require(try context.fetch(descriptor).first)
        #expect(try shipment._modelKitValue(at: 0) == .integer(0), "the placeholder, decoded as the enum's first case")
        #expect(try shipment._modelKitValue(at: 2) == .text(""))
        #expect(shipment.weight == 3)
        #expect(shipment.priority == .high)
        #expect(shipment.label == "fragile")
    }

    /// The typed reads return a left-out property's placeholder without decoding it (see
    /// `PartialFetch.typedPlaceholders`): what the model holds must be what decoding would give.
    @Test(arguments: StoreKind.withPostgres) func aLeftOutPropertyHoldsItsColumnsPlaceholderUntilItLoads(kind: StoreKind) throws {
        let (store, container) = try seeded(kind)
        defer { withExtendedLifetime(store) {} }
        let context = ModelContext(container)
        let entity = try context.entity(for: Listing.self)
        let partial = try #require(try PartialFetch(descriptor([\.title], sortBy: []), entity: entity))
        #expect(partial.typedPlaceholders == 0b11_1110, "price, rating, listedAt, summary and photo")
        #expect(partial.nullPlaceholders == 0b100_0000, "note")
        let listings = try context.fetch(descriptor([\.title], sortBy: []))
        #expect(listings.count == 3)
        for listing in listings {
            for column in partial.unfetched {
                #expect(try listing._modelKitValue(at: column) == partial.placeholders[column], "column \(column)")
            }
        }
        #expect(listings.map(\.summary) == ["long text", "long text", "long text"])
    }

    @Test func eachTypesOwnPlaceholderIsWhatItsStoredValueDecodesTo() {
        func check<T: ColumnConvertible & Equatable>(_: T.Type) {
            let placeholder = T._modelKitPlaceholder
            #expect(placeholder != nil, "\(T.self)")
            #expect(placeholder.flatMap { T(sqlValue: $0.sqlValue) } == placeholder, "\(T.self)")
        }
        check(Bool.self)
        check(Int.self)
        check(Int8.self)
        check(UInt64.self)
        check(Double.self)
        check(Float.self)
        check(String.self)
        check(Date.self)
        check(Data.self)
        #expect(UUID._modelKitPlaceholder == nil && URL._modelKitPlaceholder == nil && Decimal._modelKitPlaceholder == nil)
    }
}

import Foundation
import ModelKit
import Testing

enum IndexV1 {
    @Model final class Visit {
        var city: String
        var day: Int
        init(city: String, day: Int) { self.city = city; self.day = day }
    }
}

enum IndexV2 {
    @Model final class Visit {
        #Index<Visit>([\.city], [\.day, \.city])
        #Unique<Visit>([\.city, \.day])
        var city: String
        var day: Int
        var note: String? = nil
        init(city: String, day: Int, note: String? = nil) { self.city = city; self.day = day; self.note = note }
    }
}

enum BadIndex {
    @Model final class Visit {
        #Index<Visit>([\.cache])
        var city: String
        @Transient var cache = 0
        init(city: String) { self.city = city }
    }
}

@Suite struct IndexTests {
    func indexes(_ store: TemporaryStore) throws -> [[String]] {
        try store.sql("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Visit' ORDER BY name")
    }

    @Test func indexesAndCompoundUniqueConstraintsAreCreated() throws {
        let store = try TemporaryStore()
        _ = try store.container(for: IndexV2.Visit.self)
        #expect(try indexes(store) == [
            ["Visit_city_day_unique", #"CREATE UNIQUE INDEX "Visit_city_day_unique" ON "Visit" ("city", "day")"#],
            ["Visit_city_index", #"CREATE INDEX "Visit_city_index" ON "Visit" ("city")"#],
            ["Visit_day_city_index", #"CREATE INDEX "Visit_day_city_index" ON "Visit" ("day", "city")"#],
        ])
    }

    @Test func migrationAddsIndexesToExistingStores() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: IndexV1.Visit.self))
        context.insert(IndexV1.Visit(city: "Oslo", day: 1))
        try context.save()
        #expect(try indexes(store).isEmpty)
        _ = try store.container(for: IndexV2.Visit.self)
        #expect(try indexes(store).map(\.[0]) == ["Visit_city_day_unique", "Visit_city_index", "Visit_day_city_index"])
    }

    @Test func compoundUniqueConflictUpdatesTheStoredRow() throws {
        let context = ModelContext(try inMemoryContainer(for: IndexV2.Visit.self))
        context.insert(IndexV2.Visit(city: "Oslo", day: 1, note: "first"))
        context.insert(IndexV2.Visit(city: "Oslo", day: 2, note: "other day"))
        try context.save()
        context.insert(IndexV2.Visit(city: "Oslo", day: 1, note: "second"))
        try context.save()
        let visits = try ModelContext(context.container).fetch(FetchDescriptor<IndexV2.Visit>(sortBy: [SortDescriptor(\.day)]))
        #expect(visits.map(\.note) == ["second", "other day"])
    }

    @Test func uniqueConstraintOverRepeatedStoredValuesIsIncompatible() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: IndexV1.Visit.self))
        context.insert(IndexV1.Visit(city: "Oslo", day: 1))
        context.insert(IndexV1.Visit(city: "Oslo", day: 1))
        try context.save()
        #expect {
            _ = try store.container(for: IndexV2.Visit.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.incompatibleSchemaChange("Visit", "city, day", _) = error else { return false }
            return true
        }
        #expect(try indexes(store).isEmpty)
    }

    @Test func indexOnAPropertyThatIsNotPersistedIsATypedError() {
        #expect {
            _ = try inMemoryContainer(for: BadIndex.Visit.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.invalidSchema("Visit", let reason) = error else { return false }
            return reason.contains("not a persisted property")
        }
    }
}

import Foundation
import ModelKit
import Testing

/// One model in two versions: `.unique` on `code`, then not.
enum UniqueV1 {
    @Model final class Coupon {
        @Attribute(.unique) var code: String
        var issued: Date
        init(code: String, issued: Date = .now) {
            self.code = code
            self.issued = issued
        }
    }
}

enum UniqueV2 {
    @Model final class Coupon {
        var code: String
        var issued: Date
        init(code: String, issued: Date = .now) {
            self.code = code
            self.issued = issued
        }
    }
}

/// What a store records about its schema, and what opening it writes.
@Suite struct SchemaMetadataTests {
    @Test func theStoreRecordsStorageKindsNotSwiftTypeNames() throws {
        let store = try TemporaryStore()
        _ = try store.container(for: UniqueV1.Coupon.self)
        let recorded = try store.sql("SELECT property, type FROM _modelkit_properties WHERE entity = 'Coupon' AND property <> '' ORDER BY property")
        #expect(recorded == [["code", "text"], ["issued", "real"]])
    }

    @Test func aStoreRecordedWithSwiftTypeNamesOpensAndIsUpgraded() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: UniqueV1.Coupon.self)
        let context = ModelContext(container)
        context.insert(UniqueV1.Coupon(code: "A"))
        try context.save()
        // As an earlier release, on macOS, recorded it.
        _ = try store.sql("UPDATE _modelkit_properties SET type = 'Foundation.Date' WHERE property = 'issued'")
        _ = try store.sql("UPDATE _modelkit_properties SET type = 'Swift.String' WHERE property = 'code'")
        _ = try store.sql("DELETE FROM _modelkit_store WHERE key = 'fingerprint'")
        let reopened = try store.container(for: UniqueV1.Coupon.self)
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<UniqueV1.Coupon>()).map(\.code) == ["A"])
        #expect(try store.sql("SELECT type FROM _modelkit_properties WHERE property = 'issued'") == [["real"]])
    }

    @Test func removingUniqueDropsTheConstraint() throws {
        let store = try TemporaryStore()
        let first = ModelContext(try store.container(for: UniqueV1.Coupon.self))
        first.insert(UniqueV1.Coupon(code: "SAME"))
        try first.save()
        let second = ModelContext(try store.container(for: UniqueV2.Coupon.self))
        second.insert(UniqueV2.Coupon(code: "SAME"))
        try second.save()
        #expect(try second.fetchCount(FetchDescriptor<UniqueV2.Coupon>()) == 2)
    }

    @Test func openingAStoreThatAlreadyMatchesWritesNothing() throws {
        let store = try TemporaryStore()
        let seeding = ModelContext(try store.container(for: UniqueV1.Coupon.self))
        seeding.insert(UniqueV1.Coupon(code: "A"))
        try seeding.save()
        // Another process holds the write lock: any write would wait for it, then fail.
        let holder = try RawConnection(path: store.url.path)
        try holder.execute("BEGIN IMMEDIATE")
        let readOnly = try store.container(for: UniqueV1.Coupon.self, allowsSave: false)
        #expect(try ModelContext(readOnly).fetch(FetchDescriptor<UniqueV1.Coupon>()).map(\.code) == ["A"])
        try holder.execute("ROLLBACK")
    }
}

enum RatingV1 {
    @Model final class Review {
        var stars: Int?
        init(stars: Int?) { self.stars = stars }
    }
}

enum RatingV2 {
    @Model final class Review {
        var stars: Int = 3
        init(stars: Int) { self.stars = stars }
    }
}

@Suite struct LightweightStepTests {
    @Test func anOptionalPropertyBecomesRequiredWithItsDefault() throws {
        let store = try TemporaryStore()
        let first = ModelContext(try store.container(for: RatingV1.Review.self))
        first.insert(RatingV1.Review(stars: nil))
        first.insert(RatingV1.Review(stars: 5))
        try first.save()
        let second = ModelContext(try store.container(for: RatingV2.Review.self))
        let stars = try second.fetch(FetchDescriptor<RatingV2.Review>(sortBy: [SortDescriptor(\.stars)])).map(\.stars)
        #expect(stars == [3, 5])
    }
}

import Foundation
import Testing

@testable import ModelKit

@Model final class Reading {
    @Attribute(.unique) var label: String
    var value: Double
    var optionalValue: Double?
    var single: Float
    init(label: String, value: Double, single: Float) {
        self.label = label
        self.value = value
        self.optionalValue = value
        self.single = single
    }
}

@Model final class Gauge {
    @Attribute(.unique) var level: Double
    var note: String
    init(level: Double, note: String) {
        self.level = level
        self.note = note
    }
}

/// Every `Double` and `Float` keeps its bits in every store: signed zeros, infinities, subnormals
/// and NaNs with their payloads and signs, through single and multi-row inserts and upserts,
/// updates one at a time and many at once, fetches and predicates.
@Suite struct FloatingPointBitsTests {
    static let doubles: [Double] = [
        0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        Double(bitPattern: 0x000f_ffff_ffff_ffff), .greatestFiniteMagnitude, 0.1, .nan, -.nan,
        Double(nan: 0x1234, signaling: false), Double(bitPattern: 0x7ff8_0000_0000_0001),
        Double(bitPattern: 0xfff8_0000_dead_beef), Double(nan: 0x1234, signaling: true),
    ]
    static let floats: [Float] = [
        0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1,
        .nan, -.nan, Float(nan: 0x12, signaling: false), Float(bitPattern: 0x7fc0_0001), Float(bitPattern: 0xffc0_beef),
    ]

    /// The values of row `index`, turned by `shift` places so that each save writes other bits.
    static func values(_ index: Int, shift: Int) -> (Double, Float) {
        (doubles[(index + shift) % doubles.count], floats[(index + shift) % floats.count])
    }

    /// Expects the stored readings `label0`, `label1`, … to hold the values turned by `shift`.
    func expectStored(in container: ModelContainer, count: Int, shift: Int, _ step: String) throws {
        let stored = try ModelContext(container).fetch(FetchDescriptor<Reading>())
        #expect(stored.count == count, "\(step)")
        for reading in stored {
            let index = try #require(Int(reading.label.dropFirst(5)))
            let (double, float) = Self.values(index, shift: shift)
            #expect(reading.value.bitPattern == double.bitPattern, "\(step): \(reading.label) double \(double)")
            #expect(reading.optionalValue?.bitPattern == double.bitPattern, "\(step): \(reading.label) optional double \(double)")
            #expect(reading.single.bitPattern == float.bitPattern, "\(step): \(reading.label) float \(float)")
        }
    }

    @Test(arguments: StoreKind.withPostgres)
    func everyBitPatternRoundTripsThroughInsertsUpdatesAndUpserts(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Reading.self)
        let count = Self.doubles.count * Self.floats.count
        func reading(_ index: Int, shift: Int) -> Reading {
            let (double, float) = Self.values(index, shift: shift)
            return Reading(label: "label\(index)", value: double, single: float)
        }

        let single = ModelContext(container)
        single.insert(reading(0, shift: 0))
        try single.save()
        try expectStored(in: container, count: 1, shift: 0, "a one-row insert")

        let many = ModelContext(container)
        for index in 1..<count { many.insert(reading(index, shift: 0)) }
        try many.save()
        try expectStored(in: container, count: count, shift: 0, "a multi-row insert")

        let updating = ModelContext(container)
        for model in try updating.fetch(FetchDescriptor<Reading>()) {
            let (double, float) = Self.values(Int(model.label.dropFirst(5))!, shift: 1)
            (model.value, model.optionalValue, model.single) = (double, double, float)
        }
        try updating.save()
        try expectStored(in: container, count: count, shift: 1, "updates of many rows")

        let one = try #require(try updating.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.label == "label3" })).first)
        let (double, float) = Self.values(3, shift: 2)
        (one.value, one.optionalValue, one.single) = (double, double, float)
        try updating.save()
        let third = FetchDescriptor<Reading>(predicate: #Predicate { $0.label == "label3" })
        let three = try #require(try ModelContext(container).fetch(third).first)
        #expect(three.value.bitPattern == double.bitPattern, "an update of one row")
        #expect(three.single.bitPattern == float.bitPattern, "an update of one row")

        let upserting = ModelContext(container)
        for index in 0..<count { upserting.insert(reading(index, shift: 3)) }
        try upserting.save()
        try expectStored(in: container, count: count, shift: 3, "a multi-row upsert onto the stored rows")
    }

    /// PostgreSQL's unique index takes every NaN for one value, and both zeros for one: new models
    /// sharing one in a save end as one row with the last one's values, in one multi-row upsert
    /// as row by row. (SQLite's index compares the bits a NaN or −0.0 is stored as.)
    @Test(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
    func newModelsWhoseUniqueDoublesAreEqualNaNsOrZerosEndAsOneRowOnPostgreSQL() throws {
        let store = try TestStore(.postgres)
        let container = try store.container(for: Gauge.self)
        let context = ModelContext(container)
        let levels: [Double] = [0, -0.0, Double(nan: 1, signaling: false), Double(nan: 2, signaling: false), -.nan, 1]
        for (index, level) in levels.enumerated() { context.insert(Gauge(level: level, note: "gauge \(index)")) }
        try context.save()

        let notes = try ModelContext(container).fetch(FetchDescriptor<Gauge>()).map(\.note)
        #expect(notes.sorted() == ["gauge 1", "gauge 4", "gauge 5"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func predicatesCompareEveryValueAsSwiftDoes(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Reading.self)
        let context = ModelContext(container)
        // SQLite compares a stored −0.0 like a NaN, a known gap (see Predicates.md).
        let stored = kind == .postgres ? Self.doubles : Self.doubles.filter { $0 != 0 || $0.sign == .plus }
        for (index, double) in stored.enumerated() { context.insert(Reading(label: "label\(index)", value: double, single: 0)) }
        try context.save()

        let reader = ModelContext(container)
        for value in Self.doubles {
            let equal = try reader.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value == value }))
            #expect(Set(equal.map(\.value.bitPattern)) == Set(stored.filter { $0 == value }.map(\.bitPattern)), "== \(value)")
            let below = try reader.fetchCount(FetchDescriptor<Reading>(predicate: #Predicate { $0.value < value }))
            #expect(below == stored.filter { $0 < value }.count, "< \(value)")
        }
    }
}

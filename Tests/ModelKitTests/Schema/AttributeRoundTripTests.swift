import Foundation
import ModelKit
import Testing

@Suite struct AttributeRoundTripTests {
    /// Saves `model` and reads it back through a fresh context (and, on disk, a fresh container).
    func roundTrip(_ model: AllTypes, in kind: StoreKind) throws -> AllTypes {
        let store = try TestStore(kind)
        let container = try store.container(for: AllTypes.self)
        let context = ModelContext(container)
        context.insert(model)
        try context.save()
        let reader = kind == .inMemory ? container : try store.container(for: AllTypes.self)
        let fetched = try ModelContext(reader).fetch(FetchDescriptor<AllTypes>())
        try #require(fetched.count == 1)
        #expect(fetched[0] !== model)
        return fetched[0]
    }

    @Test(arguments: StoreKind.withPostgres)
    func extremeValuesRoundTripExactly(kind: StoreKind) throws {
        let model = AllTypes()
        model.bool = true
        model.int = .min
        model.int8 = .min
        model.int16 = .max
        model.int32 = .min
        model.int64 = .max
        model.uint = .max
        model.uint8 = .max
        model.uint16 = .max
        model.uint32 = .max
        model.uint64 = .max
        model.double = .greatestFiniteMagnitude
        model.float = -.leastNonzeroMagnitude
        // PostgreSQL's text cannot hold NUL (a typed error: see PostgresStoreTests).
        model.string = kind == .postgres ? "Grüße, 世界 👋🏽 end" : "Grüße, 世界 👋🏽 \u{0} end"
        model.date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
        model.data = Data([0, 255, 1, 0])
        model.uuid = UUID()
        model.url = URL(string: "https://example.com/a%20b?q=1&r=ä#frag")!
        model.decimal = Decimal(string: "12345678901234567890.123456789")!
        model.status = .closed
        model.level = .high
        model.point = Point(x: -1.5, y: .infinity)
        model.shape = .square(side: 2.25)
        model.tags = ["a", "", "ü"]
        model.scores = ["x": .max, "y": .min]
        model.points = [Point(x: 1, y: 2), Point(x: .nan, y: 0)]
        model.optionalInt = .max
        model.optionalString = ""
        model.optionalDate = Date(timeIntervalSince1970: -1e9 + 0.000_001)
        model.optionalData = Data()
        model.optionalStatus = .open
        model.optionalLevel = .low
        model.optionalPoint = Point(x: 0, y: -0.0)
        model.optionalDouble = -.infinity

        let read = try roundTrip(model, in: kind)
        #expect(read.bool == true)
        #expect(read.int == .min)
        #expect(read.int8 == .min)
        #expect(read.int16 == .max)
        #expect(read.int32 == .min)
        #expect(read.int64 == .max)
        #expect(read.uint == .max)
        #expect(read.uint8 == .max)
        #expect(read.uint16 == .max)
        #expect(read.uint32 == .max)
        #expect(read.uint64 == .max)
        #expect(read.double == .greatestFiniteMagnitude)
        #expect(read.float == -.leastNonzeroMagnitude)
        #expect(read.string == model.string)
        #expect(read.date == model.date)
        #expect(read.data == model.data)
        #expect(read.uuid == model.uuid)
        #expect(read.url == model.url)
        #expect(read.decimal == model.decimal)
        #expect(read.status == .closed)
        #expect(read.level == .high)
        #expect(read.point == model.point)
        #expect(read.shape == model.shape)
        #expect(read.tags == model.tags)
        #expect(read.scores == model.scores)
        #expect(read.points.count == 2 && read.points[0] == Point(x: 1, y: 2) && read.points[1].x.isNaN)
        #expect(read.optionalInt == .max)
        #expect(read.optionalString == "")
        #expect(read.optionalDate == model.optionalDate)
        #expect(read.optionalData == Data())
        #expect(read.optionalStatus == .open)
        #expect(read.optionalLevel == .low)
        #expect(read.optionalPoint?.y.sign == .minus)
        #expect(read.optionalDouble == -.infinity)
    }

    @Test(arguments: StoreKind.withPostgres)
    func emptyAndNilValuesRoundTrip(kind: StoreKind) throws {
        let read = try roundTrip(AllTypes(), in: kind)
        #expect(read.data == Data())
        #expect(read.string == "")
        #expect(read.tags == [])
        #expect(read.scores == [:])
        #expect(read.optionalInt == nil)
        #expect(read.optionalString == nil)
        #expect(read.optionalDate == nil)
        #expect(read.optionalData == nil)
        #expect(read.optionalStatus == nil)
        #expect(read.optionalPoint == nil)
    }

    /// Text is bound from the string's own UTF-8: empty, non-ASCII, long and Foundation-made
    /// strings read back as written (SQLite keeps a NUL inside text too).
    @Test(arguments: [
        "", "e\u{301} \u{e9} 😀 中文", String(repeating: "abc", count: 400_000), NSString(string: "from Foundation é") as String,
        "nul \u{0} inside",
    ])
    func stringsRoundTripWhateverTheirContent(text: String) throws {
        let model = AllTypes()
        model.string = text
        model.optionalString = text
        let read = try roundTrip(model, in: .onDisk)
        #expect(read.string == text)
        #expect(read.optionalString == text)
    }

    @Test(arguments: [Double.nan, -Double.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .pi])
    func doublesKeepTheirBitPattern(value: Double) throws {
        let model = AllTypes()
        model.double = value
        model.optionalDouble = value
        model.float = Float(value)
        let read = try roundTrip(model, in: .onDisk)
        #expect(read.double.bitPattern == value.bitPattern)
        #expect(read.optionalDouble?.bitPattern == value.bitPattern)
        #expect(read.float.bitPattern == Float(value).bitPattern)
    }

    @Test func columnsUseNativeSQLiteTypes() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: AllTypes.self))
        let model = AllTypes()
        model.int = 42
        model.string = "text"
        model.status = .closed
        model.level = .high
        model.tags = ["a"]
        context.insert(model)
        try context.save()
        let row = try store.sql("SELECT int, string, status, level, tags, typeof(double), typeof(data) FROM AllTypes")
        #expect(row == [["42", "text", "closed", "2", "[\"a\"]", "real", "blob"]])
    }
}

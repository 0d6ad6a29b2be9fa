import Foundation
@testable import ModelKit
import Testing

/// A model of every type the initializer reads straight from SQLite's typed columns, and their
/// optionals.
@Model
final class TypedColumns {
    var int: Int
    var int64: Int64
    var text: String
    var real: Double
    var flag: Bool
    var date: Date
    var maybeInt: Int?
    var maybeText: String?
    var maybeReal: Double?
    var maybeDate: Date?

    init() {
        int = 0
        int64 = 0
        text = ""
        real = 0
        flag = false
        date = Date(timeIntervalSinceReferenceDate: 0)
    }
}

/// Models read their columns through SQLite's typed calls when a row holds each property at its
/// own column (``ModelRow/direct``), and through ``SQLValue`` otherwise. Both must take and refuse
/// the same stored values: rows written here by raw SQL hold values of other storage classes than
/// ModelKit writes, as other programs and older stores can.
@Suite struct TypedColumnReadTests {
    @Test func storedValuesOfEveryStorageClassDecodeAsTheGeneralPathDecodesThem() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: TypedColumns.self)
        let context = ModelContext(container)
        let written = TypedColumns()
        written.maybeInt = 7
        context.insert(written)
        try context.save()
        // An INTEGER where a Double and a Date are stored as REAL; the eight bytes of a NaN and
        // of a negative zero, as ModelKit stores them; NULL in every optional; text stays text.
        _ = try store.sql(
            """
            UPDATE TypedColumns SET "int" = -3, "int64" = 9223372036854775807, "text" = 'é', "real" = 4,
                "flag" = 2, "date" = 10, "maybeInt" = NULL, "maybeText" = NULL,
                "maybeReal" = x'000000000000F87F', "maybeDate" = x'0000000000000080'
            """)

        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<TypedColumns>()).first)
        #expect(fetched.int == -3)
        #expect(fetched.int64 == .max)
        #expect(fetched.text == "é")
        #expect(fetched.real == 4)
        #expect(fetched.flag)
        #expect(fetched.date == Date(timeIntervalSinceReferenceDate: 10))
        #expect(fetched.maybeInt == nil)
        #expect(fetched.maybeText == nil)
        #expect(fetched.maybeReal?.isNaN == true)
        let negativeZero = try #require(fetched.maybeDate?.timeIntervalSinceReferenceDate)
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
    }

    @Test(arguments: [
        ("int", "2.5", "Int"), ("int64", "'seven'", "Int64"), ("text", "x'00'", "String"), ("real", "'four'", "Double"),
        ("flag", "1.5", "Bool"), ("date", "'today'", "Date"), ("maybeInt", "'x'", "Optional<Int>"),
    ])
    func aStoredValueOfAnotherTypeIsATypedError(column: String, value: String, type: String) throws {
        let store = try TemporaryStore()
        let container = try store.container(for: TypedColumns.self)
        let context = ModelContext(container)
        context.insert(TypedColumns())
        try context.save()
        _ = try store.sql("UPDATE TypedColumns SET \"\(column)\" = \(value)")
        #expect {
            _ = try ModelContext(container).fetch(FetchDescriptor<TypedColumns>())
        } throws: { error in
            guard case ModelKitError.storedValueMismatch("TypedColumns", column, type, _) = error else { return false }
            return true
        }
    }

    @Test func aWholeTableFetchIsRightWhenTheTableGrewOrShrankSinceTheLastOne() throws {
        let container = try inMemoryContainer(for: TypedColumns.self)
        let context = ModelContext(container)
        func insert(_ values: Range<Int>) throws {
            for index in values {
                let model = TypedColumns()
                model.int = index
                context.insert(model)
            }
            try context.save()
        }
        func fetchedCount() throws -> Int {
            try ModelContext(container).fetch(FetchDescriptor<TypedColumns>()).count
        }
        try insert(0..<100)
        #expect(try fetchedCount() == 100)
        try insert(100..<5100)
        #expect(try fetchedCount() == 5100)
        try context.delete(model: TypedColumns.self, where: #Predicate { $0.int >= 10 })
        try context.save()
        #expect(try fetchedCount() == 10)
        // The same context fetches its registered models again: no second instance of a row.
        let again = ModelContext(container)
        let first = try again.fetch(FetchDescriptor<TypedColumns>())
        let second = try again.fetch(FetchDescriptor<TypedColumns>())
        #expect(first.count == 10 && zip(first, second).allSatisfy { $0 === $1 })
    }
}

import Foundation
import Testing

@testable import ModelKit

@Model final class Grocery {
    var name: String
    var note: String?
    init(name: String, note: String? = nil) {
        self.name = name
        self.note = note
    }
}

/// `localizedStandardContains`, the search predicate SwiftData apps use most: the store's answer
/// is Swift's, for accented, mixed-case and non-Latin text.
@Suite struct LocalizedStandardContainsTests {
    static let names = [
        "Milk", "MILK chocolate", "almond milk", "Crème Brûlée", "creme brulee", "Straße", "STRASSE", "naïve café",
        "Ångström", "Éclair", "Ελληνικά", "ΕΛΛΗΝΙΚΆ", "Москва", "москва", "東京タワー", "とうきょう", "İstanbul", "ıstanbul",
        "ﬁsh", "fish", "e\u{301}te\u{301}", "été", "", "50% off_", "Ǆungla",
    ]
    static let needles = [
        "milk", "MILK", "brulee", "BRÛLÉE", "strasse", "straße", "CAFE", "angstrom", "eclair", "ελληνικα", "МОСКВА",
        "東京", "きょう", "istanbul", "fi", "ete", "été", "%", "_", "", "x", "ǆ",
    ]

    @Test(arguments: StoreKind.withPostgres) func theStoreAnswersAsSwiftDoes(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Grocery.self)
        let context = ModelContext(container)
        for (index, name) in Self.names.enumerated() {
            context.insert(Grocery(name: name, note: index.isMultiple(of: 3) ? nil : name.uppercased()))
        }
        try context.save()
        let fresh = ModelContext(container)
        for needle in Self.needles {
            let expected = Self.names.filter { $0.localizedStandardContains(needle) }.sorted()
            let found = try fresh.fetch(
                FetchDescriptor<Grocery>(predicate: #Predicate { $0.name.localizedStandardContains(needle) }))
            #expect(found.map(\.name).sorted() == expected, "needle \(needle)")
            let count = try fresh.fetchCount(
                FetchDescriptor<Grocery>(predicate: #Predicate { $0.name.localizedStandardContains(needle) }))
            #expect(count == expected.count, "needle \(needle)")
        }
    }

    @Test(arguments: StoreKind.withPostgres) func anOptionalPropertyMatchesOnlyWhenSet(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Grocery.self))
        context.insert(Grocery(name: "a", note: "Crème"))
        context.insert(Grocery(name: "b"))
        try context.save()
        let found = try context.fetch(
            FetchDescriptor<Grocery>(predicate: #Predicate { $0.note?.localizedStandardContains("creme") == true }))
        #expect(found.map(\.name) == ["a"])
    }

    @Test func sqliteEvaluatesItInSQLAndPostgreSQLInSwift() throws {
        let entity = Schema([Grocery.self]).entities[0]
        let predicate = #Predicate<Grocery> { $0.name.localizedStandardContains("milk") }
        let sqlite = try PredicateSQL.condition(for: predicate, entity: entity, dialect: .sqlite)
        #expect(sqlite.text == #"(modelkit_localized_standard_contains("Grocery"."name", ?) = 1)"#)
        #expect(sqlite.bindings == [.text("milk")])
        #expect(throws: Untranslatable.self) { try PredicateSQL.condition(for: predicate, entity: entity, dialect: .postgres) }
    }

    @Test func theSQLiteFunctionIsOnEveryConnectionAndNullSafe() throws {
        let connection = try Connection(path: ":memory:")
        let rows = try connection.statement(
            "SELECT modelkit_localized_standard_contains('Crème', 'CREME'), modelkit_localized_standard_contains('a', 'b'), "
                + "modelkit_localized_standard_contains(NULL, 'a') IS NULL"
        ).rows()
        #expect(rows == [[.integer(1), .integer(0), .integer(1)]])
    }
}

import Foundation
import Testing

@testable import ModelKit

/// Predicates of one shape share a cached translation; each still gets the answer its own
/// constants, operators and key paths ask for.
@Suite struct TranslationCacheTests {
    let context: ModelContext

    init() throws {
        context = ModelContext(try inMemoryContainer(for: Ticket.self))
        for (index, title) in ["a", "b", "c", "d", "e"].enumerated() {
            context.insert(Ticket(title, count: index, score: Double(index) / 2, isOpen: index.isMultiple(of: 2), note: index == 0 ? nil : "n\(index)"))
        }
        try context.save()
    }

    func titles(_ predicate: Predicate<Ticket>) throws -> [String] {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
    }

    @Test func oneShapeWithOtherConstantsFindsOtherRows() throws {
        for limit in 0..<5 {
            #expect(try titles(#Predicate { $0.count < limit }) == Array(["a", "b", "c", "d", "e"].prefix(limit)))
        }
    }

    @Test func operatorsAndKeyPathsOfOneTypeAreNotConfused() throws {
        let two = 2
        #expect(try titles(#Predicate { $0.count < two }) == ["a", "b"])
        #expect(try titles(#Predicate { $0.count > two }) == ["d", "e"])
        #expect(try titles(#Predicate { $0.count + two == 3 }) == ["b"])
        #expect(try titles(#Predicate { $0.count - two == 0 }) == ["c"])
        let note = "n1"
        #expect(try titles(#Predicate { $0.title == note }) == [])
        #expect(try titles(#Predicate { $0.note == note }) == ["b"])
    }

    @Test func nilAndAValueOfOneOptionalAreNotConfused() throws {
        for note in [String?.none, "n3", nil, "n4"] {
            #expect(try titles(#Predicate { $0.note == note }) == (note == nil ? ["a"] : note == "n3" ? ["d"] : ["e"]))
        }
    }

    @Test func listsOfEveryLengthBindTheirOwnValues() throws {
        for wanted in [[], ["c"], ["a", "e"], (0..<100).map { "x\($0)" } + ["b"], (0..<100).map { "y\($0)" } + ["d", "a"]] {
            #expect(try titles(#Predicate { wanted.contains($0.title) }) == wanted.filter { $0.count == 1 }.sorted())
        }
    }

    @Test func aShapeIsTranslatedOnceAndTheCacheStaysBounded() throws {
        let entity = try #require(context.container.schema.entities.first)
        for limit in 0..<10 { _ = try titles(#Predicate { $0.count < limit }) }
        #expect(entity.translations.count == 1)
        let cache = TranslationCache()
        let translation = try RecordedTranslation { PredicateTerm("1") }
        for shape in 0..<(TranslationCache.limit + 10) {
            cache.store(translation, for: TranslationCache.Key(expression: ObjectIdentifier(Int.self), dialect: .sqlite, keyPaths: [], shape: [shape]))
        }
        #expect(cache.count <= TranslationCache.limit)
    }
}

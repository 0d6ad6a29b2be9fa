import Foundation
import ModelKit
import Testing

/// A model named with a non-ASCII letter, related to one named with `$` and a digit.
@Model final class Café {
    var name: String
    @Relationship(inverse: \Price$1.café) var prices: [Price$1] = []
    init(name: String) { self.name = name }
}

@Model final class Price$1 {
    var amount: Int
    var café: Café?
    init(amount: Int, café: Café? = nil) {
        self.amount = amount
        self.café = café
    }
}

/// Model and property names are identifiers in SQL, never read as placeholders or split into bytes.
@Suite struct UnusualNameTests {
    @Test func predicatesThroughRelationshipsWorkWithNonASCIIAndDollarNames() throws {
        let context = ModelContext(try inMemoryContainer(for: Café.self, Price$1.self))
        let corner = Café(name: "Corner")
        context.insert(Price$1(amount: 3, café: corner))
        context.insert(Price$1(amount: 9, café: Café(name: "Plaza")))
        try context.save()
        let cheap = try context.fetch(FetchDescriptor<Café>(predicate: #Predicate { $0.prices.contains { $0.amount < 5 } }))
        #expect(cheap.map(\.name) == ["Corner"])
        let atCorner = try context.fetch(FetchDescriptor<Price$1>(predicate: #Predicate { $0.café?.name == "Corner" }))
        #expect(atCorner.map(\.amount) == [3])
        #expect(try context.fetchCount(FetchDescriptor<Café>(predicate: #Predicate { $0.prices.count == 1 })) == 2)
    }
}

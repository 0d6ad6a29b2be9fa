import Foundation
import Testing

@testable import ModelKit

@Suite struct AggregateTests {
    let context: ModelContext

    init() throws {
        context = ModelContext(try inMemoryContainer(for: Ticket.self))
        for (title, score, open) in [("a", 1.5, true), ("b", 2.25, false), ("c", 4.0, true)] {
            context.insert(Ticket(title, score: score, isOpen: open))
        }
        try context.save()
    }

    @Test func sumRunsInSQLiteWithItsPredicate() throws {
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        #expect(try context.sum(of: \Ticket.score) == 7.75)
        #expect(try context.sum(of: \Ticket.score, where: #Predicate { $0.isOpen }) == 5.5)
        #expect(try context.sum(of: \Ticket.score, where: #Predicate { $0.title == "none" }) == 0)
        #expect(statements.allSatisfy { $0.hasPrefix(#"SELECT total("score")"#) })
    }

    /// A stored negative zero is a blob, as a NaN is; it adds nothing to a sum, where counting
    /// it as a NaN made the sum NaN, and it equals zero.
    @Test func aStoredNegativeZeroAddsNothingToASum() throws {
        context.insert(Ticket("z", score: -0.0))
        try context.save()
        #expect(try context.sum(of: \Ticket.score) == 7.75)
        #expect(try context.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.score == 0 })) == 1)
        #expect(try context.fetchCount(FetchDescriptor<Ticket>(predicate: #Predicate { $0.score != 0 })) == 3)
    }

    @Test func sumCountsPendingChangesAndUntranslatedPredicates() throws {
        context.insert(Ticket("d", score: 10))
        #expect(try context.sum(of: \Ticket.score) == 17.75)
        try context.save()
        #expect(try context.sum(of: \Ticket.score, where: #Predicate { $0.title.count == 1 }) == 17.75)
    }

    /// Changed, deleted and inserted models count as they are in memory; the stored rows they
    /// stand for are left out of the one SQL sum, and no other model is loaded.
    @Test func sumOverUnsavedChangesLoadsNoStoredModel() throws {
        let editor = ModelContext(context.container)
        let tickets = try editor.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.title)]))
        tickets[0].score = 3  // was 1.5
        tickets[1].isOpen = true  // joins the open ones: 2.25
        editor.delete(tickets[2])  // 4.0 leaves
        editor.insert(Ticket("d", score: 10, isOpen: false))
        var statements: [String] = []
        editor.statementTrace = { statements.append($0) }
        #expect(try editor.sum(of: \Ticket.score) == 15.25)
        #expect(try editor.sum(of: \Ticket.score, where: #Predicate { $0.isOpen }) == 5.25)
        let leftOut = #"NOT ("_pk" IN (SELECT value FROM json_each(?)))"#
        #expect(statements.count == 2 && statements.allSatisfy { $0.contains(leftOut) })
        editor.insert(Ticket("nan", score: .nan))
        #expect(try editor.sum(of: \Ticket.score).isNaN)
    }

    @Test func aStoredNaNMakesTheSumNaN() throws {
        context.insert(Ticket("nan", score: .nan))
        try context.save()
        #expect(try context.sum(of: \Ticket.score).isNaN)
        #expect(try context.sum(of: \Ticket.score, where: #Predicate { $0.isOpen == false }) == 2.25)
    }
}

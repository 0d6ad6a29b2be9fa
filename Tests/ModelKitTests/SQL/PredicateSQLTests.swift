import Foundation
import Testing

@testable import ModelKit

/// The SQL text and bindings generated for predicates, checked without a database.
@Suite struct PredicateSQLTests {
    let entity = Schema([Ticket.self]).entities[0]

    func sql(_ predicate: Predicate<Ticket>) throws -> PredicateTerm {
        try PredicateSQL.condition(for: predicate, entity: entity)
    }

    func untranslated(_ predicate: Predicate<Ticket>) -> String? {
        do {
            _ = try sql(predicate)
            return nil
        } catch {
            return (error as? Untranslatable)?.node
        }
    }

    @Test func comparisonsBindTheirValues() throws {
        let fragment = try sql(#Predicate { $0.count > 3 && $0.title <= "m" })
        #expect(fragment.text == #"(("Ticket"."count" > ?) AND ("Ticket"."title" <= ?))"#)
        #expect(fragment.bindings == [.integer(3), .text("m")])
    }

    @Test func equalityIsNullSafe() throws {
        #expect(try sql(#Predicate { $0.note == nil }).text == #"("Ticket"."note" IS NULL)"#)
        #expect(try sql(#Predicate { $0.note != nil }).text == #"("Ticket"."note" IS NOT NULL)"#)
        #expect(try sql(#Predicate { $0.title == "a" }).text == #"("Ticket"."title" IS ?)"#)
    }

    @Test func logicNegationAndBooleanProperties() throws {
        #expect(try sql(#Predicate { $0.isOpen }).text == #""Ticket"."isOpen""#)
        #expect(try sql(#Predicate { !$0.isOpen || $0.count == 1 }).text == #"((NOT "Ticket"."isOpen") OR ("Ticket"."count" IS ?))"#)
    }

    @Test func arithmetic() throws {
        let fragment = try sql(#Predicate { $0.count * 2 + 1 > 5 && $0.count % 2 == 0 && -$0.count < 0 })
        #expect(fragment.text == #"((((("Ticket"."count" * ?) + ?) > ?) AND (("Ticket"."count" % ?) IS ?)) AND ((-"Ticket"."count") < ?))"#)
        #expect(fragment.bindings == [.integer(2), .integer(1), .integer(5), .integer(2), .integer(0), .integer(0)])
    }

    @Test func stringMatchingUsesInstrSoWildcardsAreLiteral() throws {
        let fragment = try sql(#Predicate { $0.title.contains("50%_'\\") })
        #expect(fragment.text == #"(instr("Ticket"."title", ?) > 0)"#)
        #expect(fragment.bindings == [.text("50%_'\\")])
        #expect(try sql(#Predicate { $0.title.starts(with: "ab") }).text == #"(instr("Ticket"."title", ?) = 1)"#)
    }

    @Test func collectionContainsBecomesIn() throws {
        let kinds: [Kind] = [.bug, .idea]
        let fragment = try sql(#Predicate { kinds.contains($0.kind) })
        #expect(fragment.text == #"("Ticket"."kind" IN (?, ?))"#)
        #expect(fragment.bindings == [.text("bug"), .text("idea")])
        let none: [Int] = []
        #expect(try sql(#Predicate { none.contains($0.count) }).text == "(1 = 0)")
    }

    @Test func enumsCompareByRawValue() throws {
        let high = Priority.high
        let bug = Kind.bug
        let fragment = try sql(#Predicate { $0.priority == high && $0.kind != bug })
        #expect(fragment.bindings == [.integer(2), .text("bug")])
    }

    @Test func optionalsChainCoalesceAndFlatMap() throws {
        let chained = try sql(#Predicate { $0.note?.starts(with: "x") == true })
        #expect(chained.text == #"((CASE WHEN "Ticket"."note" IS NULL THEN NULL ELSE (instr("Ticket"."note", ?) = 1) END) IS ?)"#)
        #expect(chained.bindings == [.text("x"), .integer(1)])
        let coalesced = try sql(#Predicate { ($0.note ?? "") == "" })
        #expect(coalesced.text == #"(coalesce("Ticket"."note", ?) IS ?)"#)
        let mapped = try sql(#Predicate { $0.note.flatMap { $0.contains("q") } ?? false })
        #expect(mapped.text == #"coalesce((CASE WHEN "Ticket"."note" IS NULL THEN NULL ELSE (instr("Ticket"."note", ?) > 0) END), ?)"#)
    }

    @Test func ternaryBecomesCase() throws {
        let fragment = try sql(#Predicate { ($0.isOpen ? $0.count : 0) > 1 })
        #expect(fragment.text == #"((CASE WHEN "Ticket"."isOpen" THEN "Ticket"."count" ELSE ? END) > ?)"#)
    }

    @Test func datesUUIDsAndURLsBindTheirStoredForm() throws {
        let date = Date(timeIntervalSinceReferenceDate: 100.5)
        let token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        let link = URL(string: "https://example.com/a")!
        let fragment = try sql(#Predicate { $0.due < date && $0.token == token && $0.link == link })
        #expect(fragment.bindings == [.real(100.5), .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), .text("https://example.com/a")])
    }

    @Test func floatingComparisonsExcludeNaNOnTheSideThatWouldSortAbove() throws {
        let greater = try sql(#Predicate { $0.score > 1.5 })
        #expect(greater.text == #"(("Ticket"."score" > ?) AND ("Ticket"."score" < x''))"#)
        #expect(greater.bindings == [.real(1.5)])
        let less = try sql(#Predicate { $0.score <= 1.5 })
        #expect(less.text == #"(("Ticket"."score" <= ?) AND (? < x''))"#)
        #expect(less.bindings == [.real(1.5), .real(1.5)])
    }

    /// A long list's JSON array, written by hand, reads back as the values it holds, strings with
    /// quotes, backslashes, control characters and any Unicode included.
    @Test func aListsJSONArrayReadsBackAsItsValues() throws {
        let texts = ["plain", "quote \" and \\ backslash", "tab\tnew\nline\u{0}nul\u{1F}", "é 🎉 \u{2028}", ""]
        let values: [SQLValue] =
            [.null, .integer(.min), .integer(.max), .real(1.5), .blob(Data([0, 0xAB, 0xFF]))] + texts.map { .text($0) }
        let json = try PredicateTerm.jsonArray(of: values)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])
        #expect(parsed[0] is NSNull)
        #expect((parsed[1] as? NSNumber)?.int64Value == .min && (parsed[2] as? NSNumber)?.int64Value == .max)
        #expect((parsed[3] as? NSNumber)?.doubleValue == 1.5 && parsed[4] as? String == "00ABFF")
        #expect(parsed.suffix(texts.count).compactMap { $0 as? String } == texts)
        #expect(throws: Untranslatable.self) { try PredicateTerm.jsonArray(of: [.real(.infinity)]) }
    }

    @Test func aNegativeZeroConstantBindsAsZero() throws {
        let zero = -0.0
        #expect(try sql(#Predicate { $0.score > zero }).bindings == [.real(0)])
    }

    /// The negative zero's term keeps an index on the column serving an equality with a
    /// constant (SQLite searches the index twice, for the value and for the negative zero), and
    /// comparisons and ranges search it as before, rather than scanning the table.
    @Test func aFloatingComparisonWithAConstantStillSearchesTheColumnsIndex() throws {
        let connection = try Connection(path: ":memory:")
        try connection.statement(#"CREATE TABLE "Ticket" ("_pk" INTEGER PRIMARY KEY, "score" REAL)"#).run()
        try connection.statement(#"CREATE INDEX "byScore" ON "Ticket" ("score")"#).run()
        let predicates = [
            #Predicate<Ticket> { $0.score == 1.5 }, #Predicate<Ticket> { $0.score > 1.5 }, #Predicate<Ticket> { 1.5 >= $0.score },
            #Predicate<Ticket> { $0.score >= 1.5 && $0.score < 3 },
        ]
        for predicate in predicates {
            let condition = try sql(predicate)
            let plan = try connection.statement(#"EXPLAIN QUERY PLAN SELECT * FROM "Ticket" WHERE "# + condition.text).rows(condition.bindings)
            let steps = plan.compactMap { row -> String? in if case .text(let step) = row.last { step } else { nil } }
            #expect(!steps.isEmpty && !steps.contains { $0.hasPrefix("SCAN") }, "\(condition.text): \(steps)")
        }
    }

    @Test func floatingEqualityTestsTheConstantForNaN() throws {
        let equal = try sql(#Predicate { $0.score == 1.5 })
        #expect(
            equal.text
                == #"((("Ticket"."score" IS ?) AND NOT (typeof(?) = 'blob' AND ? IS NOT x'0000000000000080')) OR (("Ticket"."score" IS x'0000000000000080') AND (0.0 IS ?)))"#
        )
        let notEqual = try sql(#Predicate { 1.5 != $0.score })
        #expect(
            notEqual.text
                == #"(((? IS NOT "Ticket"."score") OR (typeof(?) = 'blob' AND ? IS NOT x'0000000000000080')) AND NOT (("Ticket"."score" IS x'0000000000000080') AND (? IS 0.0)))"#
        )
    }

    @Test func constructsSQLiteWouldAnswerDifferentlyStayInSwift() {
        #expect(untranslated(#Predicate { $0.big > 5 }) == "Comparison<KeyPath<Variable<Ticket>, UInt64>, Value<UInt64>>")
        #expect(untranslated(#Predicate { $0.amount > 5 }) != nil)
        #expect(untranslated(#Predicate { $0.tags.contains("a") }) != nil)
        #expect(untranslated(#Predicate { $0.title.count > 3 }) == "KeyPath<KeyPath<Variable<Ticket>, String>, Int>")
        // A node with no translation at all is named, not the whole tree.
        #expect(untranslated(#Predicate { $0.isOpen && $0.tags.allSatisfy { $0.isEmpty } })?.hasPrefix("SequenceAllSatisfy<") == true)
        #expect(untranslated(#Predicate { ($0.note?.count ?? 0) > 2 }) != nil)
    }
}

import Testing

@testable import ModelKit

/// The one `SQL` value: how parts compose, and how each dialect spells the parameters of a whole
/// statement.
@Suite struct SQLParameterTests {
    @Test func composingKeepsEachPartsBindingsInTheOrderItsPlaceholderAppears() {
        let left = SQL(text: #""a" = ?"#, bindings: [.integer(1)])
        let right = SQL(text: #""b" = ?"#, bindings: [.text("x")])
        let joined = SQL.compose("($1 AND $0)", [left, right])
        #expect(joined == SQL(text: #"("b" = ? AND "a" = ?)"#, bindings: [.text("x"), .integer(1)]))
    }

    @Test func aDollarInAPartIsTextNotAPlaceholder() {
        let name = SQL(text: #""Price$1""#)
        #expect(SQL.compose("SELECT * FROM $0", [name]).text == #"SELECT * FROM "Price$1""#)
    }

    @Test func sqliteKeepsQuestionMarks() {
        let spelled = SQLDialect.sqlite.spellingParameters(of: #"SELECT "_pk" FROM "T" WHERE "a" = ? AND "b" IN (?, ?)"#)
        #expect(spelled.text == #"SELECT "_pk" FROM "T" WHERE "a" = ? AND "b" IN (?, ?)"#)
        #expect(spelled.count == 3)
    }

    @Test func postgresNumbersParametersInOrder() {
        let spelled = SQLDialect.postgres.spellingParameters(of: #"UPDATE "T" SET "a" = ?, "b" = ? WHERE "_pk" = ?"#)
        #expect(spelled.text == #"UPDATE "T" SET "a" = $1, "b" = $2 WHERE "_pk" = $3"#)
        #expect(spelled.count == 3)
    }

    @Test func aQuestionMarkInAStringOrIdentifierIsNotAParameter() {
        let spelled = SQLDialect.postgres.spellingParameters(of: #"SELECT 'why?', "odd?name" FROM "T" WHERE "x" = ?"#)
        #expect(spelled.text == #"SELECT 'why?', "odd?name" FROM "T" WHERE "x" = $1"#)
        #expect(spelled.count == 1)
    }

    @Test func aDoubledQuoteStaysInsideItsString() {
        let spelled = SQLDialect.postgres.spellingParameters(of: #"SELECT 'it''s ?' WHERE "a""?" = ?"#)
        #expect(spelled.text == #"SELECT 'it''s ?' WHERE "a""?" = $1"#)
        #expect(spelled.count == 1)
    }
}

import Foundation
import TestSupport
import Testing

@testable import records

extension CommandLineTool {
    /// The `records` tool, with a data directory of its own.
    static func records() throws -> CommandLineTool { try CommandLineTool("records") }

    var defaultStore: URL { dataDirectory.appendingPathComponent("records/default.store") }
}

@Suite struct RecordsCommandTests {
    @Test(arguments: ["--help", "-h"])
    func helpPrintsTheUsageAndSucceeds(flag: String) throws {
        let records = try CommandLineTool.records()
        let result = try records.run(flag)
        #expect(result.status == 0)
        #expect(result.out.contains("usage: records"))
        #expect(result.err.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: records.defaultStore.path))
    }

    @Test func recordsSurviveBetweenRuns() throws {
        let records = try CommandLineTool.records()
        #expect(try records.run("add", "income", "1200", "Salary", "--date", "2026-11-01").status == 0)
        #expect(try records.run("add", "expense", "45.5", "Groceries", "for", "the", "week", "--date", "2026-11-03").status == 0)
        #expect(try records.run("add", "--date", "2026-11-02", "expense", "0.25", "Gum").status == 0)
        #expect(FileManager.default.fileExists(atPath: records.defaultStore.path))
        #expect(try records.run("list").out == """
            2026-11-03  expense       45.50  Groceries for the week
            2026-11-02  expense        0.25  Gum
            2026-11-01  income      1200.00  Salary

            """)
        #expect(try records.run("list", "--type", "income").out == "2026-11-01  income      1200.00  Salary\n")
        #expect(try records.run("totals").out == "income 1200.00\nexpense 45.75\nbalance 1154.25\n")
    }

    @Test func storeOptionWorksOnEveryCommand() throws {
        let records = try CommandLineTool.records()
        let store = records.home.appendingPathComponent("books/2026.store").path
        #expect(try records.run("--store", store, "add", "income", "10", "Tip").status == 0)
        #expect(try records.run("list", "--store", store).out.hasSuffix("income        10.00  Tip\n"))
        #expect(try records.run("totals", "--store", store).out == "income 10.00\nexpense 0.00\nbalance 10.00\n")
        #expect(!FileManager.default.fileExists(atPath: records.defaultStore.path))
        #expect(try records.run("totals").out == "income 0.00\nexpense 0.00\nbalance 0.00\n")
    }

    @Test(arguments: [
        (["add", "refund", "10", "Shoes"], "unknown type 'refund'"),
        (["add", "income", "-5", "Oops"], "the amount '-5' is not a positive number"),
        (["add", "income", "0", "Zero"], "is not a positive number"),
        (["add", "income", "inf", "Huge"], "is not a positive number"),
        (["add", "income", "nan", "Huh"], "is not a positive number"),
        (["add", "income", "ten", "Words"], "is not a positive number"),
        (["add", "income", "10", "Late", "--date", "2026-02-30"], "the date '2026-02-30' is not a YYYY-MM-DD day"),
        (["add", "income", "10", "Late", "--date", "11/03/2026"], "is not a YYYY-MM-DD day"),
        (["add", "income", "10", " "], "the title is empty"),
        (["add", "income", "10"], "add needs a type, an amount and a title"),
        (["list", "--type", "gift"], "unknown type 'gift'"),
        (["frob"], "unknown command 'frob'"),
        (["totals", "now"], "totals takes no arguments"),
    ])
    func badInputIsRejectedAndTheStoreIsUnchanged(arguments: [String], message: String) throws {
        let records = try CommandLineTool.records()
        try records.run("add", "income", "1", "Seed", "--date", "2026-01-01")
        let before = try Data(contentsOf: records.defaultStore)
        let result = try records.run(arguments)
        #expect(result.status != 0)
        #expect(result.out == "")
        #expect(result.err.contains(message))
        #expect(try Data(contentsOf: records.defaultStore) == before)
        #expect(try records.run("list").out == "2026-01-01  income         1.00  Seed\n")
    }

    @Test func readingAMissingStoreDoesNotCreateIt() throws {
        let records = try CommandLineTool.records()
        #expect(try records.run("list").out == "")
        #expect(try records.run("totals").status == 0)
        #expect(!FileManager.default.fileExists(atPath: records.defaultStore.path))
    }

    @Test func addWithoutADateUsesToday() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let command = try RecordsCommand(arguments: ["add", "income", "5", "Tip"], now: now)
        guard case .add(let record) = command.action else { Issue.record("not an add"); return }
        #expect(record.date == now)
        #expect(RecordsCommand.format(now) == "2023-11-14")
    }
}

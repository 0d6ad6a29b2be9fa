import AppState
import Foundation
import Records
import SwiftData

/// One invocation of the `records` tool: parsed and checked first, then run on the records
/// database, so that bad input never reaches the store.
struct RecordsCommand: Equatable {
    enum Action: Equatable {
        case add(Record)
        case list(RecordType?)
        case totals
    }

    /// What went wrong, in words for the terminal.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    static let usage = """
        usage: records [--store PATH] <command>
               records --help | -h
          add <income|expense> <amount> <title> [--date YYYY-MM-DD]   store a record (today by default)
          list [--type income|expense]                                print records, newest first
          totals                                                      print income, expense and balance
        """

    let action: Action
    /// The store file; nil for the default, `<data dir>/records/default.store`.
    let store: URL?

    /// Parses `arguments` (without the program name). `now` dates records added without `--date`.
    /// - Throws: ``Failure`` for an unknown command or type, a bad amount, date or title, or a
    ///   missing or extra argument.
    init(arguments: [String], now: Date = Date()) throws {
        var arguments = arguments
        let store = try Self.option("--store", in: &arguments)
        self.store = store.map { URL(fileURLWithPath: $0) }
        guard let command = arguments.first else { throw Failure(description: "missing command") }
        arguments.removeFirst()
        switch command {
        case "add":
            let date = try Self.option("--date", in: &arguments).map(Self.date) ?? now
            guard arguments.count >= 3 else { throw Failure(description: "add needs a type, an amount and a title") }
            let type = try Self.type(arguments[0])
            let amount = try Self.amount(arguments[1])
            let title = arguments[2...].joined(separator: " ").trimmingCharacters(in: .whitespaces)
            guard !title.isEmpty else { throw Failure(description: "the title is empty") }
            action = .add(Record(title: title, date: date, type: type, amount: amount))
        case "list":
            let type = try Self.option("--type", in: &arguments).map(Self.type)
            guard arguments.isEmpty else { throw Failure(description: "list takes only --type") }
            action = .list(type)
        case "totals":
            guard arguments.isEmpty else { throw Failure(description: "totals takes no arguments") }
            action = .totals
        default:
            throw Failure(description: "unknown command '\(command)'")
        }
    }

    /// Removes `--name value` from `arguments` and returns the value.
    private static func option(_ name: String, in arguments: inout [String]) throws -> String? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count else { throw Failure(description: "\(name) needs a value") }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
        return value
    }

    private static func type(_ text: String) throws -> RecordType {
        guard let type = RecordType(rawValue: text) else {
            throw Failure(description: "unknown type '\(text)': use income or expense")
        }
        return type
    }

    private static func amount(_ text: String) throws -> Double {
        guard let amount = Double(text), amount.isFinite, amount > 0 else {
            throw Failure(description: "the amount '\(text)' is not a positive number")
        }
        return amount
    }

    /// Dates are calendar days in UTC, so a record's day does not depend on where it is read.
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func date(_ text: String) throws -> Date {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let failure = Failure(description: "the date '\(text)' is not a YYYY-MM-DD day")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
            calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: year, month: month, day: day)
        else { throw failure }
        return date
    }

    static func format(_ date: Date) -> String {
        let day = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", day.year!, day.month!, day.day!)
    }

    /// The store's location: `--store`, or the default one.
    var storeURL: URL { store ?? ModelConfiguration().url }

    /// Runs the command on the records database and returns the lines to print. Only `add`
    /// creates a store; reading a store that does not exist reads nothing.
    /// - Throws: ``Failure`` when the store cannot be opened or a record cannot be saved.
    @MainActor
    func run() throws -> [String] {
        let createsStore = if case .add = action { true } else { false }
        guard createsStore || FileManager.default.fileExists(atPath: storeURL.path) else {
            return perform(on: MockDatabaseService())
        }
        let database: SDDatabaseService
        do {
            database = try SDDatabaseService(url: storeURL)
        } catch {
            throw Failure(description: "\(error)")
        }
        let recorder = ApplicationLogger.Recorder()
        return try Application.withIsolatedScope {
            Application.promote(\.database, with: database)
            let token = Application.override(\.logger, with: recorder.logger)
            defer { withExtendedLifetime(token) {} }
            let lines = perform(on: Application.dependency(\.database))
            if let error = recorder.messages(at: .error).first { throw Failure(description: error) }
            return lines
        }
    }

    @MainActor
    private func perform(on database: any DatabaseServiceProtocol) -> [String] {
        switch action {
        case .add(let record):
            database.save(record)
            return []
        case .list(let type):
            return (type.map(database.records(ofType:)) ?? database.allRecords()).map { record in
                let type = record.type.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
                return "\(Self.format(record.date))  \(type)  \(String(format: "%10.2f", record.amount))  \(record.title)"
            }
        case .totals:
            let totals = database.totals()
            return [
                String(format: "income %.2f", totals.income),
                String(format: "expense %.2f", totals.expense),
                String(format: "balance %.2f", totals.income - totals.expense),
            ]
        }
    }
}

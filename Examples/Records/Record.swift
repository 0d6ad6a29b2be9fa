import Foundation

/// Whether a record brings money in or takes it out.
public enum RecordType: String, CaseIterable, Codable, Sendable {
    case income
    case expense
}

/// A record as views and view models see it: never a storage entity.
public struct Record: Identifiable, Equatable, Sendable {
    public let id: UUID
    public var title: String
    public var date: Date
    public var type: RecordType
    public var amount: Double

    public init(id: UUID = UUID(), title: String, date: Date, type: RecordType, amount: Double) {
        self.id = id
        self.title = title
        self.date = date
        self.type = type
        self.amount = amount
    }
}

import Foundation
import ModelKit

enum Kind: String, Codable, Sendable, CaseIterable { case task, bug, idea }
enum Priority: Int, Codable, Sendable, CaseIterable { case low, medium, high }

/// A model with one property of each kind predicates filter on.
@Model
final class Ticket {
    var title: String
    var count: Int
    var score: Double
    var isOpen: Bool
    var note: String?
    var kind: Kind
    var priority: Priority
    var due: Date
    var token: UUID
    var link: URL?
    var tags: [String]
    var big: UInt64
    var amount: Decimal

    init(
        _ title: String, count: Int = 0, score: Double = 0, isOpen: Bool = true, note: String? = nil,
        kind: Kind = .task, priority: Priority = .low, due: Date = Date(timeIntervalSinceReferenceDate: 0),
        token: UUID = UUID(), link: URL? = nil, tags: [String] = [], big: UInt64 = 0, amount: Decimal = 0
    ) {
        self.title = title
        self.count = count
        self.score = score
        self.isOpen = isOpen
        self.note = note
        self.kind = kind
        self.priority = priority
        self.due = due
        self.token = token
        self.link = link
        self.tags = tags
        self.big = big
        self.amount = amount
    }
}

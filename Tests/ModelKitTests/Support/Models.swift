import Foundation
import ModelKit

@Model
final class TodoItem {
    var title: String
    var isComplete: Bool = false
    var priority = 0
    @Transient var cache: [String] = []
    var summary: String { "\(title)\(isComplete ? " ✓" : "")" }

    init(title: String, isComplete: Bool = false) {
        self.title = title
        self.isComplete = isComplete
    }
}

@Model
class Note {
    var text: String
    var pinned: Bool?

    init(text: String) {
        self.text = text
    }
}

@Model
final class Account {
    @Attribute(.unique) var code: String
    var balance: Decimal

    init(code: String, balance: Decimal) {
        self.code = code
        self.balance = balance
    }
}

import Foundation
import ModelKit

/// The fuzzed server's models: every kind of attribute the store keeps, a unique attribute,
/// to-one and to-many relationships with a cascade, and a class hierarchy, so that pushed
/// fields of every wire kind reach a property that stores them.
@Model final class Record {
    var title: String
    var count: Int
    var small: Int8
    var large: UInt64
    var ratio: Double
    var flag: Bool
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var amount: Decimal
    var note: String?
    var words: [String]
    var kind: RecordKind
    var shelf: Shelf?
    @Relationship(inverse: \Label.records) var labels: [Label] = []

    init(title: String) {
        self.title = title
        count = 0
        small = 0
        large = 0
        ratio = 0
        flag = false
        date = Date(timeIntervalSinceReferenceDate: 0)
        data = Data()
        uuid = UUID()
        url = URL(string: "https://example.com")!
        amount = 0
        words = []
        kind = .plain
    }
}

enum RecordKind: String, Codable {
    case plain, special
}

@Model final class Label {
    @Attribute(.unique) var name: String
    var records: [Record] = []
    init(name: String) { self.name = name }
}

@Model final class Shelf {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Record.shelf) var records: [Record] = []
    init(name: String) { self.name = name }
}

@Model class Entry {
    var title: String
    init(title: String) { self.title = title }
}

@Model final class Chore: Entry {
    var done: Bool
    init(title: String, done: Bool) {
        self.done = done
        super.init(title: title)
    }
}

let fuzzedTypes: [any PersistentModel.Type] = [Record.self, Label.self, Shelf.self, Entry.self, Chore.self]

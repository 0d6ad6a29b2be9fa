import Foundation
import ModelKit

@Model final class Note {
    var title: String
    var body: String
    var pinned: Bool
    var folder: Folder?
    @Relationship(inverse: \Tag.notes) var tags: [Tag] = []

    init(title: String, body: String = "", pinned: Bool = false, folder: Folder? = nil) {
        self.title = title
        self.body = body
        self.pinned = pinned
        self.folder = folder
    }
}

@Model final class Tag {
    @Attribute(.unique) var name: String
    var notes: [Note] = []
    init(name: String) { self.name = name }
}

@Model final class Folder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Note.folder) var notes: [Note] = []
    init(name: String) { self.name = name }
}

@Model final class Counter {
    var name: String
    var value: Int
    init(name: String, value: Int = 0) {
        self.name = name
        self.value = value
    }
}

/// One property of every attribute type the store keeps.
@Model final class Sample {
    var name: String
    var int: Int
    var int8: Int8
    var uint64: UInt64
    var double: Double
    var float: Float
    var flag: Bool
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var optional: String?
    var list: [String]
    var point: SamplePoint
    var kind: SampleKind
    @Attribute(.externalStorage) var photo: Data

    init(name: String, seed: Int) {
        self.name = name
        int = Int.max - seed
        int8 = Int8.min
        uint64 = UInt64.max - UInt64(seed)
        double = seed == 0 ? -0.0 : Double(seed) / 3
        float = Float.leastNonzeroMagnitude
        flag = seed % 2 == 0
        date = Date(timeIntervalSinceReferenceDate: Double(seed) + 0.123456789)
        data = Data((0..<32).map { UInt8(($0 + seed) % 256) })
        uuid = UUID()
        url = URL(string: "https://example.com/\(seed)?q=é")!
        decimal = Decimal(string: "12345678901234567890.123456789")!
        optional = seed % 3 == 0 ? nil : "x\(seed)"
        list = ["a", "b\(seed)"]
        point = SamplePoint(x: seed, y: -seed)
        kind = seed % 2 == 0 ? .even : .odd
        photo = Data(repeating: UInt8(seed % 256), count: 20_000)
    }
}

struct SamplePoint: Codable, Hashable {
    var x: Int
    var y: Int
}

enum SampleKind: String, Codable {
    case even, odd
}

/// A class hierarchy: an item and a subclass of it.
@Model class Item {
    var title: String
    init(title: String) { self.title = title }
}

@Model final class TodoTask: Item {
    var done: Bool
    init(title: String, done: Bool) {
        self.done = done
        super.init(title: title)
    }
}

let syncedTypes: [any PersistentModel.Type] = [Note.self, Tag.self, Folder.self, Counter.self, Sample.self, Item.self, TodoTask.self]

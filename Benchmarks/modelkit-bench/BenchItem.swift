import Foundation
import ModelKit

/// The benchmark's model: a unique integer key for point lookups, an indexed value for ranges.
@Model
final class BenchItem {
    #Index<BenchItem>([\.value])
    @Attribute(.unique) var key: Int
    var name: String
    var value: Double
    var flag: Bool

    init(key: Int, name: String, value: Double, flag: Bool) {
        self.key = key
        self.name = name
        self.value = value
        self.flag = flag
    }
}

/// The same row as a plain struct, for the raw SQLite side.
struct RawItem {
    var pk: Int64
    var key: Int
    var name: String
    var value: Double
    var flag: Bool
}

/// The deterministic data both sides store: row `i` has key `i`, and a value spread over 0..<1000.
enum BenchData {
    static func name(_ i: Int) -> String { "item \(i)" }
    static func value(_ i: Int) -> Double { Double((i &* 7919) % 100_000) / 100 }
    static func flag(_ i: Int) -> Bool { i % 3 == 0 }
}

/// The relationship case: parents with ten children each.
@Model
final class BenchParent {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \BenchChild.parent) var children: [BenchChild] = []

    init(name: String) { self.name = name }
}

@Model
final class BenchChild {
    var title: String
    var position: Int
    var parent: BenchParent?

    init(title: String, position: Int) {
        self.title = title
        self.position = position
    }
}

/// A parent with its children, as plain structs.
struct RawParent {
    var pk: Int64
    var name: String
    var children: [RawChild]
}

struct RawChild {
    var pk: Int64
    var title: String
    var position: Int
}

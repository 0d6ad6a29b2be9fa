import Foundation

/// A hybrid logical clock reading: wall-clock milliseconds, a counter for readings within one
/// millisecond, and the node that made it. Readings compare by time, then counter, then node,
/// so two edits never tie and every device and server instance orders them alike.
///
/// A node's readings never go back and always come after every reading it has seen, so an edit
/// made after seeing another orders after it even if this node's wall clock runs behind; an
/// edit made offline a week ago keeps its week-old time, and loses to newer ones. On the wire it
/// is `<millis, 15 digits>-<counter, 6 digits>-<node>`, which sorts as it compares.
public struct HybridLogicalClock: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let millis: Int64
    public let counter: Int
    public let node: String

    public init(millis: Int64, counter: Int, node: String) {
        self.millis = millis
        self.counter = counter
        self.node = node
    }

    /// Parses the wire form; nil if malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let millis = Int64(parts[0]), let counter = Int(parts[1]), (0..<Int64.max).contains(millis), (0...Self.maximumCounter).contains(counter)
        else { return nil }
        self.init(millis: millis, counter: counter, node: String(parts[2]))
    }

    /// The largest counter the wire form holds (six digits); a reading past it is malformed.
    static let maximumCounter = 999_999

    /// The earliest reading, before every edit.
    public static let zero = HybridLogicalClock(millis: 0, counter: 0, node: "")

    public var description: String {
        let millis = String(millis)
        let counter = String(counter)
        return String(repeating: "0", count: max(0, 15 - millis.count)) + millis + "-"
            + String(repeating: "0", count: max(0, 6 - counter.count)) + counter + "-" + node
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.millis, lhs.counter, lhs.node) < (rhs.millis, rhs.counter, rhs.node)
    }

    /// The next reading on `node` for an event at `date`, after `self` (the newest reading the
    /// node has made or seen).
    public func tick(at date: Date, node: String) -> HybridLogicalClock {
        let wall = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        if wall > millis { return HybridLogicalClock(millis: wall, counter: 0, node: node) }
        // A millisecond's counter full: the reading moves to the next millisecond.
        if counter >= Self.maximumCounter { return HybridLogicalClock(millis: millis + 1, counter: 0, node: node) }
        return HybridLogicalClock(millis: millis, counter: counter + 1, node: node)
    }
}

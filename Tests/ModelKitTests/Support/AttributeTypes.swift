import Foundation
import ModelKit

enum Status: String, Codable, Sendable { case open, closed }
enum Level: Int, Sendable { case low = 1, high = 2 }
struct Point: Codable, Equatable, Sendable { var x: Double; var y: Double }
enum Shape: Codable, Equatable, Sendable { case circle(radius: Double), square(side: Double) }

/// A model with a property of every supported kind, each with a default.
@Model
final class AllTypes {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double: Double = 0
    var float: Float = 0
    var string: String = ""
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var data: Data = Data()
    var uuid: UUID = UUID()
    var url: URL = URL(string: "https://example.com")!
    var decimal: Decimal = 0
    var status: Status = Status.open
    var level: Level = Level.low
    var point: Point = Point(x: 0, y: 0)
    var shape: Shape = Shape.circle(radius: 1)
    var tags: [String] = []
    var scores: [String: Int] = [:]
    var points: [Point] = []
    var optionalInt: Int? = nil
    var optionalString: String? = nil
    var optionalDate: Date? = nil
    var optionalData: Data? = nil
    var optionalStatus: Status? = nil
    var optionalLevel: Level? = nil
    var optionalPoint: Point? = nil
    var optionalDouble: Double? = nil

    init() {}
}

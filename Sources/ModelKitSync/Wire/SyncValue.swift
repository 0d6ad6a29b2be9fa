import Foundation

/// One property's value on the wire: an attribute as the store keeps it, or a relationship as
/// the global identifiers of the rows it holds.
///
/// On the wire, one JSON string whose first character says the kind, so that any language reads
/// it exactly and cheaply: `"n"` (null); `"i42"` (a 64-bit integer); `"f3ff0000000000000"` (a
/// double's bits, in hexadecimal, so that every value round-trips, NaN payloads and signed zeros
/// included); `"s<text>"`; `"b<base64>"`; `"r<id>"` (a to-one); `"R<id>,<id>…"` (a to-many,
/// sorted; identifiers never hold a comma).
public enum SyncValue: Sendable, Hashable, Codable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// The global identifier of the row a to-one holds.
    case reference(String)
    /// The global identifiers of the rows a to-many holds, sorted.
    case references([String])

    public static func == (lhs: SyncValue, rhs: SyncValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        // By bytes: Swift's String equality takes canonically equivalent text ("é" and "e" with
        // a combining accent) as equal, and an edit from one to the other must travel.
        case (.text(let a), .text(let b)): a.utf8.elementsEqual(b.utf8)
        case (.blob(let a), .blob(let b)): a == b
        case (.reference(let a), .reference(let b)): a == b
        case (.references(let a), .references(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let value): hasher.combine(value)
        case .real(let value): hasher.combine(value.bitPattern)
        case .text(var value): value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let value): hasher.combine(value)
        case .reference(let value): hasher.combine(value)
        case .references(let value): hasher.combine(value)
        }
    }

    /// The wire form: one JSON string, its first character the kind.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let kind = text.utf8.first else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "an empty sync value")
        }
        let rest = text.utf8.dropFirst()
        switch kind {
        case UInt8(ascii: "n"): self = .null
        case UInt8(ascii: "i"):
            guard let value = Int64(Substring(rest)) else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a 64-bit integer") }
            self = .integer(value)
        case UInt8(ascii: "f"):
            guard let bits = UInt64(Substring(rest), radix: 16) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a double's bits in hexadecimal")
            }
            self = .real(Double(bitPattern: bits))
        case UInt8(ascii: "s"): self = .text(String(Substring(rest)))
        case UInt8(ascii: "b"):
            guard let data = Data(base64Encoded: String(Substring(rest))) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a blob that is not base64")
            }
            self = .blob(data)
        case UInt8(ascii: "r"): self = .reference(String(Substring(rest)))
        case UInt8(ascii: "R"): self = .references(rest.isEmpty ? [] : Substring(rest).split(separator: ",").map(String.init))
        default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is no kind of sync value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encode("n")
        case .integer(let value): try container.encode("i\(value)")
        case .real(let value): try container.encode("f" + String(value.bitPattern, radix: 16))
        case .text(let value): try container.encode("s" + value)
        case .blob(let value): try container.encode("b" + value.base64EncodedString())
        case .reference(let value): try container.encode("r" + value)
        case .references(let value): try container.encode("R" + value.joined(separator: ","))
        }
    }
}

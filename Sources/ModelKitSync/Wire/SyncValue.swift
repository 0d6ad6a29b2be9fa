import Foundation

/// One property's value on the wire: an attribute as the store keeps it, or a relationship as
/// the global identifiers of the rows it holds.
///
/// JSON, one key per kind, so that any language reads it exactly: `null`; `{"i": "42"}` (a
/// 64-bit integer, as a string); `{"f": "3ff0000000000000"}` (a double's bits, in hexadecimal,
/// so that every value round-trips, NaN payloads and signed zeros included); `{"s": "text"}`;
/// `{"b": "<base64>"}`; `{"r": "<id>"}` (a to-one); `{"rs": ["<id>", …]}` (a to-many, sorted).
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
        case (.text(let a), .text(let b)): a == b
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
        case .text(let value): hasher.combine(value)
        case .blob(let value): hasher.combine(value)
        case .reference(let value): hasher.combine(value)
        case .references(let value): hasher.combine(value)
        }
    }

    private enum Key: String, CodingKey { case i, f, s, b, r, rs }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self = .null
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard let key = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a value has exactly one of i, f, s, b, r, rs"))
        }
        switch key {
        case .i:
            let text = try container.decode(String.self, forKey: .i)
            guard let value = Int64(text) else {
                throw DecodingError.dataCorruptedError(forKey: .i, in: container, debugDescription: "\(text) is not a 64-bit integer")
            }
            self = .integer(value)
        case .f:
            let text = try container.decode(String.self, forKey: .f)
            guard let bits = UInt64(text, radix: 16) else {
                throw DecodingError.dataCorruptedError(forKey: .f, in: container, debugDescription: "\(text) is not a double's bits in hexadecimal")
            }
            self = .real(Double(bitPattern: bits))
        case .s: self = .text(try container.decode(String.self, forKey: .s))
        case .b: self = .blob(try container.decode(Data.self, forKey: .b))
        case .r: self = .reference(try container.decode(String.self, forKey: .r))
        case .rs: self = .references(try container.decode([String].self, forKey: .rs))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .null = self {
            var single = encoder.singleValueContainer()
            return try single.encodeNil()
        }
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .null: break
        case .integer(let value): try container.encode(String(value), forKey: .i)
        case .real(let value): try container.encode(String(value.bitPattern, radix: 16), forKey: .f)
        case .text(let value): try container.encode(value, forKey: .s)
        case .blob(let value): try container.encode(value, forKey: .b)
        case .reference(let value): try container.encode(value, forKey: .r)
        case .references(let value): try container.encode(value, forKey: .rs)
        }
    }
}

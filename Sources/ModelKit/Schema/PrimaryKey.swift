import Foundation

/// A custom store's primary key that is not a 64-bit integer, as an identifier holds it: its
/// kind (`uuid`, `string`, or the key's type name) and its text (the UUID's string, the string,
/// or the key's JSON), so that identifiers made of equal keys are equal, hash alike, and survive
/// coding in any process.
struct PrimaryKey: Hashable, Comparable, Sendable, Codable {
    let kind: String
    let text: String

    /// The key of `value`.
    /// - Throws: `EncodingError` when a key of another type cannot be encoded as JSON.
    init<T: Encodable>(_ value: T) throws {
        switch value {
        case let uuid as UUID: (kind, text) = ("uuid", uuid.uuidString)
        case let string as String: (kind, text) = ("string", string)
        case let string as Substring: (kind, text) = ("string", String(string))
        default:
            kind = String(reflecting: T.self)
            text = String(decoding: try JSONCoding.encoder.encode(value), as: UTF8.self)
        }
    }

    static func < (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool { (lhs.kind, lhs.text) < (rhs.kind, rhs.text) }
}

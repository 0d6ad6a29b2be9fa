import Foundation

/// A custom store's primary key that is not a 64-bit integer, as an identifier holds it: its
/// kind (`uuid`, `string`, or the key's type name) and its text (the UUID's string, the string,
/// or the key's JSON), so that identifiers made of equal keys are equal, hash alike, and survive
/// coding in any process.
struct PrimaryKey: Hashable, Comparable, Sendable, Codable {
    let kind: String
    let text: String
    /// The key's hash, worked out once: a custom store's identifiers are hashed on every fetch,
    /// and a UUID's text is 36 bytes.
    private let hash: Int

    private enum CodingKeys: String, CodingKey { case kind, text }

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
        hash = Self.hash(kind, text)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(String.self, forKey: .kind)
        text = try container.decode(String.self, forKey: .text)
        hash = Self.hash(kind, text)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(text, forKey: .text)
    }

    private static func hash(_ kind: String, _ text: String) -> Int {
        var hasher = Hasher()
        hasher.combine(kind)
        hasher.combine(text)
        return hasher.finalize()
    }

    static func == (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool { lhs.hash == rhs.hash && lhs.kind == rhs.kind && lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    static func < (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool { (lhs.kind, lhs.text) < (rhs.kind, rhs.text) }
}

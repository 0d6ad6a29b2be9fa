/// A statement's text with the values to bind to its parameters, in order: the one value every
/// SQL generator builds and composes, and only the store layer prepares and runs.
struct SQL: Equatable {
    var text: String
    var bindings: [SQLValue] = []

    /// Joins parts into one, with `template`'s `$0`, `$1`, … replaced by their text, and their
    /// bindings in the order their placeholders appear. The template is a constant: identifiers
    /// (table names, aliases) are parts too, so a `$` or a non-ASCII letter in a model's name is
    /// never read as a placeholder or split into bytes.
    static func compose(_ template: StaticString, _ parts: [SQL]) -> SQL {
        var result = SQL(text: "")
        template.withUTF8Buffer { bytes in
            var literalStart = 0
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "$"), index + 1 < bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 1])
                else {
                    index += 1
                    continue
                }
                result.text += String(decoding: UnsafeBufferPointer(rebasing: bytes[literalStart..<index]), as: UTF8.self)
                let part = parts[Int(bytes[index + 1] - UInt8(ascii: "0"))]
                result.text += part.text
                result.bindings += part.bindings
                index += 2
                literalStart = index
            }
            result.text += String(decoding: UnsafeBufferPointer(rebasing: bytes[literalStart...]), as: UTF8.self)
        }
        return result
    }

    /// `?, ?, …`: `count` parameters, for a value list.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// One row of `count` bound values.
    static func row(of count: Int) -> String {
        "SELECT \(placeholders(count))"
    }
}

extension String {
    /// The string as a quoted SQL identifier.
    var quotedIdentifier: String {
        var quoted = "\""
        for character in self {
            if character == "\"" { quoted.append("\"") }
            quoted.append(character)
        }
        quoted.append("\"")
        return quoted
    }

    /// The string as a quoted SQL string literal.
    package var sqlLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}

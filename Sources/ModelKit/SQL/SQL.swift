/// A statement's text with the values to bind to its parameters. Generators build these; only a
/// ``Connection`` prepares and runs them.
struct SQL: Equatable {
    var text: String
    var bindings: [SQLValue] = []

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
}

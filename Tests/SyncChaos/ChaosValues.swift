import Foundation

/// Values as the run records and compares them: exact, and readable in a diff.
enum ChaosValues {
    /// A string by its Unicode scalars, so that canonically equivalent strings of different bytes
    /// (a precomposed `é` and `e` with a combining accent) differ. ASCII shows as itself.
    static func text(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            if scalar.isASCII, scalar.value >= 0x20, scalar != "\\", scalar != "\"" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out + "\""
    }

    /// A double by its bits, so that NaN payloads and signed zeros compare exactly.
    static func real(_ value: Double) -> String { "0x" + String(value.bitPattern, radix: 16) }

    /// A to-one by its target's key; `-` for none.
    static func reference(_ key: String?) -> String { key ?? "-" }

    /// A to-many by its targets' names, sorted.
    static func names(_ names: [String]) -> String { "[" + names.map(text).sorted().joined(separator: ",") + "]" }

    /// Strings that stores, encoders and comparisons get wrong: emoji, combining marks, a
    /// precomposed letter and its decomposed twin, right-to-left text, the empty string, NUL.
    static let strings = [
        "plain", "", "émoji 👩‍👩‍👧‍👦🏳️‍🌈", "e\u{301}", "\u{e9}", "Z\u{351}\u{36b}\u{343}\u{36a}a\u{302}l\u{35b}g\u{310}o", "שלום עולם", "tab\tnew\nline",
        "quote \" and \\ backslash", "nul\u{0}inside",
    ]

    /// Doubles with bits worth keeping: signed zeros, a NaN with a payload, infinities, subnormals.
    static let reals: [Double] = [
        0.0, -0.0, Double(nan: 0x5A5A, signaling: false), -Double.nan, .infinity, -.infinity, .leastNonzeroMagnitude, 1.5, -1e300,
    ]

    /// Tag names every device draws from, so that devices make the same names offline.
    static let tagNames = ["work", "home", "urgent", "🏷️ later", "naïve", "ops"]
}

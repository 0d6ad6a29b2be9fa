import Foundation
import Testing

@testable import ModelKit

/// The bound array of keys a prefetch, a batch and a batch delete test a column against (through
/// `json_each` on SQLite); the prefetch and batch suites run it against real stores.
@Suite struct KeyArrayTests {
    /// Each key's decimal digits, as `String(key)` writes them, between brackets and commas.
    static func expected(_ keys: [Int64]) -> SQLValue {
        .text("[" + keys.map(String.init).joined(separator: ",") + "]")
    }

    @Test func aKeyArrayWritesEachKeyAsStringDoes() {
        let edges: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        #expect(SQLValue.keyArray([]) == .text("[]"))
        #expect(SQLValue.keyArray(edges) == Self.expected(edges))
        for key in edges { #expect(SQLValue.keyArray([key]) == Self.expected([key])) }

        let seed = ProcessInfo.processInfo.environment["KEY_ARRAY_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("KeyArrayTests seed: \(seed) (replay with KEY_ARRAY_SEED=\(seed))")
        var random = SeededRandom(seed: seed)
        for _ in 0..<200 {
            let keys = (0..<Int.random(in: 0...50, using: &random)).map { _ -> Int64 in
                // Every length of number, and either sign.
                let digits = Int.random(in: 1...18, using: &random)
                let magnitude = Int64.random(in: 0..<Int64(pow(10, Double(digits))), using: &random)
                return Bool.random(using: &random) ? -magnitude : magnitude
            }
            #expect(SQLValue.keyArray(keys) == Self.expected(keys), "seed \(seed): \(keys)")
        }
    }
}

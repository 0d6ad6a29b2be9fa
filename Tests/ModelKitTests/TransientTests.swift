import ModelKit
import Testing

final class Cached {
    @Transient var values: [String] = ["a"]
}

@Suite struct TransientTests {
    @Test func transientPropertyKeepsItsDefault() {
        #expect(Cached().values == ["a"])
    }
}

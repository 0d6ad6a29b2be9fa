import Testing

@testable import ModelKitMacros

@Suite struct MarkerMacroTests {
    @Test func transientMarkerExpandsToNothing() {
        let result = expand(
            """
            final class Item {
                @Transient var cache: [String] = []
            }
            """,
            with: ["Transient": MarkerMacro.self])
        #expect(
            result.source == """
                final class Item {
                    var cache: [String] = []
                }
                """)
        #expect(result.diagnostics.isEmpty)
    }
}

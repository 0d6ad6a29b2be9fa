import SwiftData
import Testing

/// A class using ModelKit's macros through `import SwiftData` alone.
final class Holder {
    @Transient var cache = [1, 2]
}

/// On Linux, `import SwiftData` must resolve to ModelKit.
@Suite struct SwiftDataReexportTests {
    @Test func swiftDataImportProvidesModelKitMacros() {
        #expect(Holder().cache == [1, 2])
    }
}

import Foundation
import SwiftData
import Testing

/// Model code written for Apple's SwiftData, compiled against `import SwiftData` alone.
@Model
final class Trip {
    var name: String
    var start: Date
    @Attribute(.unique) var code: String
    @Transient var isSelected = false

    init(name: String, start: Date, code: String) {
        self.name = name
        self.start = start
        self.code = code
    }
}

/// On Linux, `import SwiftData` must resolve to ModelKit.
@Suite struct SwiftDataReexportTests {
    @Test @MainActor func swiftDataCodeRunsOnModelKit() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        context.insert(Trip(name: "Lisbon", start: Date(timeIntervalSince1970: 0), code: "LIS"))
        try context.save()
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Lisbon"])
    }
}

import Foundation
import ModelKit

/// The engine's class hierarchies against the raw one-table design they use (see
/// `HierarchyStorage.swift`): the same 100,000 trips, half base trips, a quarter each subclass,
/// fetched as the base class (each row made as its own class) and as one subclass.
@Model class BenchTrip {
    var name: String
    var nights: Int

    init(name: String, nights: Int) {
        self.name = name
        self.nights = nights
    }
}

@Model final class BenchBusinessTrip: BenchTrip {
    var perdiem: Double

    init(name: String, nights: Int, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, nights: nights)
    }
}

@Model final class BenchPersonalTrip: BenchTrip {
    var reason: String

    init(name: String, nights: Int, reason: String) {
        self.reason = reason
        super.init(name: name, nights: nights)
    }
}

func hierarchyEngineCases(rows n: Int, options: Options) throws -> [CaseResult] {
    var results: [CaseResult] = []
    func engine(_ body: (ModelContainer) throws -> Int) throws -> Double {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(
                for: BenchTrip.self, BenchBusinessTrip.self, BenchPersonalTrip.self,
                configurations: ModelConfiguration(url: directory.appendingPathComponent("engine.store")))
            let context = ModelContext(container)
            for i in 0..<n {
                let name = "trip \(i)"
                switch i % 4 {
                case 1: context.insert(BenchBusinessTrip(name: name, nights: i % 14, perdiem: Double(i % 300)))
                case 3: context.insert(BenchPersonalTrip(name: name, nights: i % 14, reason: "family"))
                default: context.insert(BenchTrip(name: name, nights: i % 14))
                }
            }
            try context.save()
            var found = 0
            let elapsed = try seconds { found = try body(container) }
            precondition(found > 0, "nothing read")
            return elapsed
        }
    }
    func raw(_ body: (HierarchyStore) -> Int) throws -> Double {
        try timedRead(of: .single, rows: n, body)
    }
    results.appendIfPresent(
        try measureAlternating("hierarchy_engine_fetch_base", options) {
            try engine { try ModelContext($0).fetch(FetchDescriptor<BenchTrip>()).count }
        } raw: {
            try raw { $0.fetchAll().count }
        })
    results.appendIfPresent(
        try measureAlternating("hierarchy_engine_fetch_subclass", options) {
            try engine { try ModelContext($0).fetch(FetchDescriptor<BenchBusinessTrip>()).count }
        } raw: {
            try raw { $0.fetchBusinessTrips().count }
        })
    return results
}

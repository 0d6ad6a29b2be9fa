import Foundation
import ModelKit

/// What one save costs an observer of 10,000 results. Each timed step renames one of the results
/// in another context, saves, and reads the observer's results (which fetches again: the observer
/// is made outside any actor, so it refreshes on that read). The raw side updates the row and
/// selects the 10,000 rows again into structs, as code without an observer would.
///
/// - `observe_save_sorted`: results sorted by an indexed value; the observer reads the result's
///   keys again and loads the one changed row.
/// - `observe_save_unsorted`: results in key order; the observer asks which saved rows match,
///   one query over their keys.
/// - `observe_save_overhead`: the engine with the sorted observer against the engine's save
///   alone, alternating: what observing adds to a save.
func observerCases(options: Options) throws -> [CaseResult] {
    let rows = 10_000
    let saves = 100
    var results: [CaseResult] = []
    func engineSteps(sorted: Bool, observing: Bool) throws -> Double {
        try withTemporaryDirectory { directory in
            let engine = try EngineStore(url: directory.appendingPathComponent("engine.store"))
            try engine.insert(rows)
            let writer = ModelContext(engine.container)
            let items = try writer.fetch(FetchDescriptor<BenchItem>())
            let descriptor = FetchDescriptor<BenchItem>(sortBy: sorted ? [SortDescriptor(\.value)] : [])
            let observer = observing ? try ResultsObserver<BenchItem, Never>(fetchDescriptor: descriptor, modelContext: ModelContext(engine.container)) : nil
            let elapsed = try seconds {
                for step in 0..<saves {
                    items[step * 97].name = "renamed \(step)"
                    try writer.save()
                    if let observer, observer.results.count != rows { fatalError("the observer lost results") }
                }
            }
            return elapsed / Double(saves)
        }
    }
    func rawSteps(sorted: Bool) throws -> Double {
        try withTemporaryDirectory { directory in
            let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
            raw.createSchema()
            raw.insert(rows)
            let elapsed = seconds {
                for step in 0..<saves {
                    raw.rename(pk: Int64(step * 97 + 1), to: "renamed \(step)")
                    if raw.fetchAll(sortedByValue: sorted).count != rows { fatalError("raw lost rows") }
                }
            }
            return elapsed / Double(saves)
        }
    }
    results.appendIfPresent(
        try measure("observe_save_sorted", options) { try engineSteps(sorted: true, observing: true) } raw: { try rawSteps(sorted: true) })
    results.appendIfPresent(
        try measure("observe_save_unsorted", options) { try engineSteps(sorted: false, observing: true) } raw: {
            try rawSteps(sorted: false)
        })
    results.appendIfPresent(
        try measureAlternating("observe_save_overhead", options) { try engineSteps(sorted: true, observing: true) } raw: {
            try engineSteps(sorted: true, observing: false)
        })
    return results
}

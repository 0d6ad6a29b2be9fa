import Foundation

/// The raw side of the cases over one table, on SQLite or PostgreSQL.
protocol RawTable {
    func insert(_ count: Int)
    func fetchAll() -> [RawItem]
    func fetch(key: Int) -> [RawItem]
    func fetchRange(from low: Double, to high: Double, limit: Int) -> [RawItem]
    /// The first `limit` items by key.
    func fetchFirst(limit: Int) -> [RawItem]
    func countFlagged() -> Int
    func countAll() -> Int
    /// Reads every row, flips `flag` on each, and writes the rows back by primary key.
    func updateAll()
    func deleteAll()
}

extension RawStore: RawTable {}
extension RawPostgres: RawTable {}

/// The cases over one table of `n` rows, both sides filled: fetches, a count, and writes over
/// every row.
func tableCases(engine: EngineStore, raw: some RawTable, rows n: Int, options: Options) throws -> [CaseResult] {
    var results: [CaseResult] = []
    results.appendIfPresent(
        try measure("fetch_all", options) {
            try seconds {
                let count = try engine.fetchAll().count
                precondition(count == n)
            }
        } raw: {
            seconds { precondition(raw.fetchAll().count == n) }
        })

    let keys = (0..<1000).map { ($0 &* 7919) % n }
    results.appendIfPresent(
        try measure("fetch_point", options) {
            try seconds {
                let found = try engine.fetch(keys: keys)
                precondition(found == 1000)
            }
        } raw: {
            seconds { precondition(keys.reduce(0) { $0 + raw.fetch(key: $1).count } == 1000) }
        })

    // Twenty ranges a run: one 100-row fetch takes under 0.1 ms, too short to time on its own.
    let lows = (0..<20).map { 250 + Double($0) * 10 }
    results.appendIfPresent(
        try measure("fetch_range_sorted_limit", options) {
            try seconds {
                for low in lows {
                    let count = try engine.fetchRange(from: low, to: low + 500, limit: 100).count
                    precondition(count == 100)
                }
            }
        } raw: {
            seconds {
                for low in lows { precondition(raw.fetchRange(from: low, to: low + 500, limit: 100).count == 100) }
            }
        })

    results.appendIfPresent(
        try measure("fetch_limit_with_pending", options) {
            try engine.fetchLimitWithPending(rows: n, limit: 20)
        } raw: {
            seconds { precondition(raw.fetchFirst(limit: 20).count == 20) }
        })

    let flagged = raw.countFlagged()
    results.appendIfPresent(
        try measure("count", options) {
            try seconds {
                let count = try engine.countFlagged()
                precondition(count == flagged)
            }
        } raw: {
            seconds { precondition(raw.countFlagged() == flagged) }
        })

    results.appendIfPresent(
        try measure("update_all", options) {
            try seconds { try engine.updateAll() }
        } raw: {
            seconds { raw.updateAll() }
        })

    results.appendIfPresent(
        try measure("delete_all", options) {
            if try engine.countAll() == 0 { try engine.insert(n) }
            return try seconds { try engine.deleteAll() }
        } raw: {
            if raw.countAll() == 0 { raw.insert(n) }
            return seconds { raw.deleteAll() }
        })
    return results
}

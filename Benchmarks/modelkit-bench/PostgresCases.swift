import Foundation
import ModelKitPostgres

/// The cases on PostgreSQL (`--store postgres`): ModelKit's PostgreSQL store against hand-written
/// libpq, each side in a schema of its own on the server `MODELKIT_BENCH_POSTGRES_URL` (or
/// `MODELKIT_TEST_POSTGRES_URL`) names. The relationship cases and the pending-changes page run
/// on SQLite only.
func runPostgres(_ options: Options) throws -> [CaseResult] {
    let environment = ProcessInfo.processInfo.environment
    guard let text = environment["MODELKIT_BENCH_POSTGRES_URL"] ?? environment["MODELKIT_TEST_POSTGRES_URL"], let server = URL(string: text)
    else {
        FileHandle.standardError.write(
            Data("modelkit-bench: set MODELKIT_BENCH_POSTGRES_URL to a server, for example with scripts/postgres-test-server\n".utf8))
        exit(2)
    }
    func fresh() -> String { "bench_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())" }
    func engine(_ schema: String) throws -> EngineStore {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: schema)]
        return try EngineStore(configuration: PostgresConfiguration(url: components.url!))
    }
    let n = options.rows
    var results: [CaseResult] = []

    results.appendIfPresent(
        try measure("insert", options) {
            let schema = fresh()
            let store = try engine(schema)
            defer { RawPostgres.drop(schema, at: server) }
            return try seconds { try store.insert(n) }
        } raw: {
            let raw = RawPostgres(url: server, schema: fresh())
            raw.createSchema()
            return seconds { raw.insert(n) }
        })

    guard options.wants("fetch_all", "fetch_point", "fetch_range_sorted_limit", "count", "update_all", "delete_all") else { return results }
    let schema = fresh()
    let store = try engine(schema)
    defer { RawPostgres.drop(schema, at: server) }
    try store.insert(n)
    let raw = RawPostgres(url: server, schema: fresh())
    raw.createSchema()
    raw.insert(n)

    results.appendIfPresent(
        try measure("fetch_all", options) {
            try seconds {
                let count = try store.fetchAll().count
                precondition(count == n)
            }
        } raw: {
            seconds { precondition(raw.fetchAll().count == n) }
        })
    let keys = (0..<1000).map { ($0 &* 7919) % n }
    results.appendIfPresent(
        try measure("fetch_point", options) {
            try seconds {
                let found = try store.fetch(keys: keys)
                precondition(found == 1000)
            }
        } raw: {
            seconds { precondition(keys.reduce(0) { $0 + raw.fetch(key: $1).count } == 1000) }
        })
    results.appendIfPresent(
        try measure("fetch_range_sorted_limit", options) {
            try seconds {
                let count = try store.fetchRange(from: 250, to: 750, limit: 100).count
                precondition(count == 100)
            }
        } raw: {
            seconds { precondition(raw.fetchRange(from: 250, to: 750, limit: 100).count == 100) }
        })
    let flagged = raw.countFlagged()
    results.appendIfPresent(
        try measure("count", options) {
            try seconds {
                let count = try store.countFlagged()
                precondition(count == flagged)
            }
        } raw: {
            seconds { precondition(raw.countFlagged() == flagged) }
        })
    results.appendIfPresent(
        try measure("update_all", options) {
            try seconds { try store.updateAll() }
        } raw: {
            seconds { raw.updateAll() }
        })
    results.appendIfPresent(
        try measure("delete_all", options) {
            if try store.countAll() == 0 { try store.insert(n) }
            return try seconds { try store.deleteAll() }
        } raw: {
            if raw.countAll() == 0 { raw.insert(n) }
            return seconds { raw.deleteAll() }
        })
    return results
}

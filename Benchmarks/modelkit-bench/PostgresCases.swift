import Foundation
import ModelKitPostgres

/// The cases on PostgreSQL (`--store postgres`): ModelKit's PostgreSQL store against hand-written
/// libpq, each side in a schema of its own on the server `MODELKIT_BENCH_POSTGRES_URL` (or
/// `MODELKIT_TEST_POSTGRES_URL`) names. The relationship cases and the history case run on SQLite
/// only. `insert_plain` inserts rows of a model without unique attributes, which the engine
/// writes in multi-row statements; its libpq side sends one prepared `INSERT` per row, as
/// `insert` does.
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

    results.appendIfPresent(
        try measure("insert_plain", options) {
            let schema = fresh()
            let store = try engine(schema)
            defer { RawPostgres.drop(schema, at: server) }
            return try seconds { try store.insertChildren(n) }
        } raw: {
            let raw = RawPostgres(url: server, schema: fresh())
            raw.createSchema()
            return seconds { raw.insertChildren(n) }
        })

    guard options.wants("fetch_all", "fetch_point", "fetch_range_sorted_limit", "fetch_limit_with_pending", "count", "update_all", "delete_all")
    else { return results }
    let schema = fresh()
    let store = try engine(schema)
    defer { RawPostgres.drop(schema, at: server) }
    try store.insert(n)
    let raw = RawPostgres(url: server, schema: fresh())
    raw.createSchema()
    raw.insert(n)

    results += try tableCases(engine: store, raw: raw, rows: n, options: options)
    return results
}

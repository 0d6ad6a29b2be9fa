import Foundation
import ModelKit
import Testing

@testable import ModelKitPostgres

/// A PostgreSQL schema of its own for one test, in the server `MODELKIT_TEST_POSTGRES_URL`
/// names (`.ci/run` and `scripts/postgres-test-server` start one), dropped when the test is done.
final class PostgresTestDatabase: Sendable {
    /// The server, or nil when the variable is unset and PostgreSQL tests are skipped.
    static let serverURL: URL? = ProcessInfo.processInfo.environment["MODELKIT_TEST_POSTGRES_URL"].flatMap(URL.init(string:))
    static let isAvailable = serverURL != nil
    static let skipReason: Comment = "MODELKIT_TEST_POSTGRES_URL is not set: start a server with scripts/postgres-test-server"

    let schemaName = "modelkit_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"

    /// The URL of this test's schema, as server instance `instance` connects: each instance has
    /// its own `application_name`, so containers of different instances do not share an access
    /// layer, as if they ran in different processes.
    func url(instance: Int = 1) -> URL {
        var components = URLComponents(url: Self.serverURL!, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "schema", value: schemaName), URLQueryItem(name: "application_name", value: applicationName(instance: instance)),
        ]
        return components.url!
    }

    var url: URL { url() }

    /// The `application_name` of instance `instance`'s connections.
    func applicationName(instance: Int) -> String { "\(schemaName)_\(instance)" }

    /// The configuration of instance `instance`. It waits up to 30 s to connect, not 5: a full
    /// test run on two cores can keep the server from answering within 5 (the connections the
    /// tests make outside ModelKit wait as long, for the same reason).
    func configuration(allowsSave: Bool = true, instance: Int = 1) -> PostgresConfiguration {
        PostgresConfiguration(url: url(instance: instance), allowsSave: allowsSave, connectTimeout: .seconds(30))
    }

    func container(for types: any PersistentModel.Type..., instance: Int = 1) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [configuration(instance: instance)])
    }

    /// The rows of `sql`, run in the test's schema outside ModelKit, as text ("NULL" for NULL).
    func rows(_ sql: String) throws -> [[String]] {
        let connection = try PostgresDriver(url: url(instance: 0), connectTimeout: .seconds(30)).connect()
        let statement = try connection.prepare(sql, parameterCount: 0)
        var rows: [[String]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { index in
                switch statement.column(index) {
                case .null: "NULL"
                case .integer(let value): String(value)
                case .real(let value): String(value)
                case .text(let value): value
                case .blob(let value): value.base64EncodedString()
                }
            })
        }
        return rows
    }

    /// Ends every connection instance `instance` has, as a server restart would, and returns
    /// once their server processes are gone (termination is asynchronous).
    func dropConnections(instance: Int) throws {
        try execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(applicationName(instance: instance))'")
        try waitFor("instance \(instance)'s connections to end", "SELECT 1 FROM pg_stat_activity WHERE application_name = '\(applicationName(instance: instance))'", rows: 0)
    }

    /// Returns once one of instance `instance`'s connections waits for a lock another holds.
    func waitForALockWait(instance: Int = 1) throws {
        try waitFor(
            "a connection of instance \(instance) to wait for a lock",
            "SELECT 1 FROM pg_stat_activity WHERE application_name = '\(applicationName(instance: instance))' AND wait_event_type = 'Lock'", rows: 1)
    }

    /// Polls `sql` until it returns `rows` rows; throws after 30 seconds.
    private func waitFor(_ what: String, _ sql: String, rows expected: Int) throws {
        let deadline = Date().addingTimeInterval(30)
        while try rows(sql).count != expected {
            guard Date() < deadline else { throw PostgresError(kind: .statementFailed, message: "timed out waiting for \(what)") }
            usleep(5_000)
        }
    }

    /// Runs `body` while a transaction that ran `sql` in the test's schema, outside ModelKit, is
    /// open; rolls it back after.
    func whileWriting(_ sql: String, _ body: () throws -> Void) throws {
        let connection = try PostgresDriver(url: url(instance: 0), connectTimeout: .seconds(30)).connect()
        try connection.execute("BEGIN; \(sql)")
        defer { try? connection.execute("ROLLBACK") }
        try body()
    }

    /// Runs `sql` in the test's schema, outside ModelKit.
    func execute(_ sql: String) throws {
        let driver = PostgresDriver(url: url(instance: 0), connectTimeout: .seconds(30))
        try driver.connect().execute(sql)
    }

    deinit {
        let driver = PostgresDriver(url: Self.serverURL!, connectTimeout: .seconds(30))
        try? driver.connect().execute("DROP SCHEMA IF EXISTS \"\(schemaName)\" CASCADE")
    }
}

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

    /// The URL of this test's schema.
    var url: URL {
        var components = URLComponents(url: Self.serverURL!, resolvingAgainstBaseURL: false)!
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: schemaName)]
        return components.url!
    }

    func configuration(allowsSave: Bool = true) -> PostgresConfiguration {
        PostgresConfiguration(url: url, allowsSave: allowsSave)
    }

    func container(for types: any PersistentModel.Type...) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [configuration()])
    }

    /// Runs `sql` in the test's schema, outside ModelKit.
    func execute(_ sql: String) throws {
        let driver = PostgresDriver(url: url, connectTimeout: .seconds(5))
        try driver.connect().execute(sql)
    }

    deinit {
        let driver = PostgresDriver(url: Self.serverURL!, connectTimeout: .seconds(5))
        try? driver.connect().execute("DROP SCHEMA IF EXISTS \"\(schemaName)\" CASCADE")
    }
}

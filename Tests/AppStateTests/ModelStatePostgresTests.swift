#if !canImport(Darwin)
import AppState
import Foundation
import Observation
import SwiftData
import Testing

@testable import ModelKitPostgres

/// ModelState on a PostgreSQL store: an observer in one server instance hears another
/// instance's save.
@MainActor
@Suite(.enabled(if: ProcessInfo.processInfo.environment["MODELKIT_TEST_POSTGRES_URL"] != nil, "MODELKIT_TEST_POSTGRES_URL is not set"))
struct ModelStatePostgresTests {
    @Test func anotherInstancesSaveFiresTheObserverWithinOneSecond() throws {
        let server = URL(string: ProcessInfo.processInfo.environment["MODELKIT_TEST_POSTGRES_URL"]!)!
        let schemaName = "appstate_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        func url(instance: Int) -> URL {
            var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "schema", value: schemaName), URLQueryItem(name: "application_name", value: "\(schemaName)_\(instance)")]
            return components.url!
        }
        defer { try? PostgresDriver(url: server, connectTimeout: .seconds(30)).connect().execute("DROP SCHEMA IF EXISTS \"\(schemaName)\" CASCADE") }
        let here = try ModelContainer(for: Item.self, configurations: PostgresConfiguration(url: url(instance: 1), connectTimeout: .seconds(30)))
        let elsewhere = try ModelContainer(for: Item.self, configurations: PostgresConfiguration(url: url(instance: 2), connectTimeout: .seconds(30)))

        try Application.withIsolatedScope {
            let token = Application.override(\.modelContainer, with: here)
            defer { withExtendedLifetime(token) {} }
            let fired = FireCount()
            withObservationTracking { _ = Application.modelState(\.allItems).models } onChange: { fired.fire() }

            let other = ModelContext(elsewhere)
            other.insert(Item(title: "from the other instance"))
            try other.save()
            let saved = Date()
            while fired.value == 0, Date().timeIntervalSince(saved) < 5 { usleep(10_000) }
            #expect(fired.value == 1)
            #expect(Date().timeIntervalSince(saved) < 1, "fired within a second of the other instance's commit")
            #expect(Application.modelState(\.allItems).models.map(\.title) == ["from the other instance"])
        }
    }
}
#endif

import CLibPQ
import Foundation
import ModelKit

/// ModelKit's driver for PostgreSQL, over libpq.
struct PostgresDriver: DatabaseDriver {
    let url: URL
    let connectTimeout: Duration
    var pooledConnections = 16

    var dialect: SQLDialect { .postgres }
    var writesConcurrently: Bool { true }

    /// The database's URL without its password.
    var displayURL: URL { PostgresConfiguration.redacted(url) }

    /// The URL without its password: containers with equal URLs share one access layer in the
    /// process; a different URL to the same database (another `application_name`, say) acts as
    /// another instance.
    var location: String { displayURL.absoluteString }

    /// The `schema` query parameter: the PostgreSQL schema holding the store's tables.
    var searchPath: String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value
    }

    /// libpq's keywords and values: the URL without `schema` (libpq's own parameters pass
    /// through), the connect timeout, and the application name.
    var connectionParameters: (keywords: [String], values: [String]) {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let items = components?.queryItems?.filter { $0.name != "schema" }
        components?.queryItems = items?.isEmpty == false ? items : nil
        let seconds = max(2, Int(connectTimeout.components.seconds))
        var keywords = ["dbname", "connect_timeout"]
        var values = [components?.string ?? url.absoluteString, String(seconds)]
        if items?.contains(where: { $0.name == "application_name" }) != true {
            keywords.append("application_name")
            values.append("ModelKit")
        }
        return (keywords, values)
    }

    func connect() throws -> any DatabaseConnection {
        let (keywords, values) = connectionParameters
        return try PostgresConnection(keywords: keywords, values: values, searchPath: searchPath)
    }

    func listen(on channel: String, _ receive: @escaping @Sendable (String) -> Void) throws -> (any DriverListener)? {
        let (keywords, values) = connectionParameters
        return try PostgresListener(keywords: keywords, values: values, channel: channel, receive: receive)
    }
}

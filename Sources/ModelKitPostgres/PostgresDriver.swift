import CLibPQ
import Foundation
import ModelKit

/// ModelKit's driver for PostgreSQL, over libpq.
struct PostgresDriver: DatabaseDriver {
    let url: URL
    let connectTimeout: Duration

    var dialect: SQLDialect { .postgres }

    /// The database's URL without its password.
    var redactedURL: URL { PostgresConfiguration.redacted(url) }

    /// Host, port, user, database and schema: what makes two configurations the same store.
    var location: String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let host = components?.host ?? "localhost"
        let port = components?.port.map(String.init) ?? "5432"
        let user = components?.user ?? ""
        return "postgresql://\(user)@\(host):\(port)\(components?.path ?? "")#\(searchPath ?? "public")"
    }

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
        return (["dbname", "connect_timeout", "application_name"], [components?.string ?? url.absoluteString, String(seconds), "ModelKit"])
    }

    func connect() throws -> any DriverConnection {
        let (keywords, values) = connectionParameters
        return try PostgresConnection(keywords: keywords, values: values, searchPath: searchPath)
    }

    func listen(on channel: String, _ receive: @escaping @Sendable (String) -> Void) throws -> any DriverListener {
        let (keywords, values) = connectionParameters
        return try PostgresListener(keywords: keywords, values: values, channel: channel, receive: receive)
    }
}

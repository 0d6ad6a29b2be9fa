import Foundation
import ModelKit

/// A ModelKit store in a PostgreSQL database, for several instances of a server sharing one
/// database. Models, fetches, predicates and ModelState code stay as they are; only the
/// configuration changes:
///
/// ```swift
/// let url = URL(string: "postgresql://app:secret@db.internal:5432/notes")!
/// let container = try ModelContainer(for: Note.self, configurations: PostgresConfiguration(url: url))
/// ```
///
/// The URL is libpq's: `postgresql://user:password@host:port/database?parameters`, where
/// parameters are libpq's (`sslmode=require`, …) plus `schema=name`, the PostgreSQL schema that
/// holds the store's tables (created if missing; `public` by default). The password never
/// appears in ``description``, in errors or in logs.
public struct PostgresConfiguration: EngineStoreConfiguration, CustomStringConvertible {
    /// The store SwiftData names for this configuration: the PostgreSQL database, as a `DataStore`.
    public typealias Store = PostgresStore

    /// The configuration's name.
    public let name: String
    /// The model types this configuration stores, if it names them.
    public var schema: Schema?
    /// Whether contexts may save.
    public let allowsSave: Bool
    /// The database URL, password included.
    public let url: URL
    /// How long creating a container waits for the server before throwing: 5 seconds by
    /// default, at least 2 (libpq counts whole seconds).
    public let connectTimeout: Duration
    /// How many connections the process keeps open between contexts: 16 by default. Each
    /// context reads and saves through one of its own, taken when it first needs it and given
    /// back when it goes, so concurrent contexts save at once. With more contexts at once than
    /// this, the others connect anew, which costs the server a new backend process each time:
    /// set it to the concurrent requests an instance serves, and keep instances × (it + 2)
    /// within the server's `max_connections`.
    public let pooledConnections: Int

    /// A configuration for the database at `url`.
    public init(
        url: URL, name: String? = nil, schema: Schema? = nil, allowsSave: Bool = true, connectTimeout: Duration = .seconds(5),
        pooledConnections: Int = 16
    ) {
        self.url = url
        self.name = name ?? (url.path.isEmpty ? "postgres" : String(url.path.dropFirst()))
        self.schema = schema
        self.allowsSave = allowsSave
        self.connectTimeout = connectTimeout
        self.pooledConnections = max(0, pooledConnections)
    }

    /// The URL without its password.
    public var redactedURL: URL { Self.redacted(url) }

    public var description: String { "PostgresConfiguration(\(name), \(redactedURL.absoluteString))" }

    /// The database's driver.
    package var engineDriver: (any DatabaseDriver)? {
        PostgresDriver(url: url, connectTimeout: connectTimeout, pooledConnections: pooledConnections)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.allowsSave == rhs.allowsSave && lhs.schema === rhs.schema
            && lhs.connectTimeout == rhs.connectTimeout && lhs.pooledConnections == rhs.pooledConnections
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(allowsSave)
    }

    static func redacted(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else { return url }
        components.password = "***"
        return components.url ?? url
    }
}

/// Describes a store a ``ModelContainer`` keeps models in, as SwiftData's protocol does:
/// ``ModelConfiguration`` for a SQLite file or memory, `PostgresConfiguration` in
/// `ModelKitPostgres`, or your own, whose ``Store`` is your ``DataStore``.
///
/// ```swift
/// final class JSONStoreConfiguration: DataStoreConfiguration {
///     typealias Store = JSONStore
///     var name: String
///     var schema: Schema?
///     var fileURL: URL
///     …
/// }
/// let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(name: "Trips", schema: Schema([Trip.self]), fileURL: url))
/// ```
public protocol DataStoreConfiguration: Hashable {
    /// The store this configuration describes.
    associatedtype Store: DataStore where Self == Self.Store.Configuration
    /// The configuration's name.
    var name: String { get }
    /// The model types the configuration stores, if it names them (every type of the container
    /// otherwise).
    var schema: Schema? { get set }
    /// Checks that the configuration can describe a store; a container calls it before opening
    /// the store.
    /// - Throws: why it cannot.
    func validate() throws
}

extension DataStoreConfiguration {
    /// Nothing to check, unless the configuration says otherwise.
    public func validate() throws {}
}

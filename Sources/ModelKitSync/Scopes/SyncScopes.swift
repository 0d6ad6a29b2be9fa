import Foundation
import ModelKit

/// Which rows each user reads and may write, one `#Predicate` per model, evaluated by the server
/// on its own data at every request. A model with no scope is read and written by every user.
///
/// ```swift
/// var scopes = SyncScopes()
/// // One predicate for reading and writing: a user's own notes.
/// scopes.set(Note.self) { user in #Predicate<Note> { $0.owner == user } }
/// // Or two: members read a project, members with canWrite write it.
/// scopes.set(Project.self,
///     read: { user in #Predicate<Project> { p in p.members.contains { $0.userID == user } } },
///     write: { user in #Predicate<Project> { p in p.members.contains { $0.userID == user && $0.canWrite } } })
/// let server = try SyncServer(container: container, policies: policies, scopes: scopes) { request in
///     try verify(request.credentials["authorization"])   // the user's id
/// }
/// ```
///
/// A device receives exactly the rows its user's read predicates admit, and rows leave it (without
/// being deleted anywhere) when data changes so that they no longer do. Each pushed row change
/// must pass the write predicate on the row as the server has it and as the push leaves it; one
/// that does not is refused (``SyncRejection/Code/outOfScope``) and the device's copy goes back.
/// A scope set on a class holds for its subclasses that have none of their own.
public struct SyncScopes: Sendable {
    private(set) var rules: [String: Rule] = [:]

    public init() {}

    /// Scopes `type` by one predicate for reading and writing: what `scope(user)` admits.
    public mutating func set<Model: PersistentModel>(_ type: Model.Type, _ scope: @escaping @Sendable (String) -> Predicate<Model>) {
        set(type, read: scope, write: scope)
    }

    /// Scopes `type` by two predicates: a user reads the rows `read(user)` admits and writes those
    /// `write(user)` admits. Rows a user may write but not read can be made, never seen again.
    public mutating func set<Model: PersistentModel>(
        _ type: Model.Type, read: @escaping @Sendable (String) -> Predicate<Model>, write: @escaping @Sendable (String) -> Predicate<Model>
    ) {
        rules[String(describing: Model.self)] = Rule(type: Model.self, read: read, write: write)
    }

    /// Whether no model is scoped.
    public var isEmpty: Bool { rules.isEmpty }

    /// A scope with its model type erased: the queries and checks the server runs.
    struct Rule: Sendable {
        /// The rows `user` reads, by one query on the store. With `subclasses`, the models are
        /// loaded, so that each row is named by its own class: identifiers read without loading
        /// name the queried class, and a subclass's rows would not be recognized as read.
        let readable: @Sendable (_ user: String, _ context: ModelContext, _ subclasses: Bool) throws -> [PersistentIdentifier]
        /// Whether `user` reads `model`, evaluated on the model as it is in memory.
        let reads: @Sendable (_ user: String) -> @Sendable (any PersistentModel) throws -> Bool
        /// Whether `user` writes `model`, evaluated on the model as it is in memory.
        let writes: @Sendable (_ user: String) -> @Sendable (any PersistentModel) throws -> Bool

        init<Model: PersistentModel>(
            type: Model.Type, read: @escaping @Sendable (String) -> Predicate<Model>, write: @escaping @Sendable (String) -> Predicate<Model>
        ) {
            readable = { user, context, subclasses in
                let descriptor = FetchDescriptor<Model>(predicate: read(user))
                return subclasses ? try context.fetch(descriptor).map(\.persistentModelID) : try context.fetchIdentifiers(descriptor)
            }
            reads = { user in
                let predicate = read(user)
                return { model in try (model as? Model).map { try predicate.evaluate($0) } ?? false }
            }
            writes = { user in
                let predicate = write(user)
                return { model in try (model as? Model).map { try predicate.evaluate($0) } ?? false }
            }
        }
    }
}

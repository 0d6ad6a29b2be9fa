import Foundation

/// A context's identity as a ``DataStore`` sees it: each ``ModelContext`` has one, in
/// ``ModelContext/editingState``, and passes it with each request.
public struct EditingState: Identifiable, Sendable {
    /// The type of the editing state's identifier.
    public typealias ID = UUID
    /// The context's identifier, the same for every request of one context.
    public let id: UUID
    /// The context's ``ModelContext/author``, when the request was made.
    public var author: String?

    package init(id: UUID = UUID(), author: String? = nil) {
        self.id = id
        self.author = author
    }
}

import Foundation

/// What to fetch: which models, in what order, and how many, as in SwiftData.
///
/// ```swift
/// var descriptor = FetchDescriptor<TodoItem>(
///     predicate: #Predicate { !$0.isComplete },
///     sortBy: [SortDescriptor(\.title)])
/// descriptor.fetchLimit = 20
/// let items = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel> {
    /// The models to include; all of them when nil.
    public var predicate: Predicate<T>?
    /// The order of the results; by insertion order when empty.
    public var sortBy: [SortDescriptor<T>]
    /// The most models to return.
    public var fetchLimit: Int?
    /// How many matching models to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count. True by default.
    public var includePendingChanges: Bool
    /// The properties to load; ModelKit always loads all of them.
    public var propertiesToFetch: [PartialKeyPath<T>]
    /// Relationships to load eagerly.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>]

    /// A descriptor for the models matching `predicate`, sorted by `sortBy`.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
        self.propertiesToFetch = []
        self.relationshipKeyPathsForPrefetching = []
    }
}

/// Sendable as in SwiftData: predicates and sort descriptors are, and the key paths it holds are
/// immutable values that name stored properties.
extension FetchDescriptor: @unchecked Sendable {}

extension FetchDescriptor {
    /// The positions of `count` results that `fetchOffset` and `fetchLimit` keep.
    func page(of count: Int) -> Range<Int> {
        let start = min(fetchOffset ?? 0, count)
        return start..<(fetchLimit.map { start + min($0, count - start) } ?? count)
    }
}

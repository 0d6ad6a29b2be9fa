/// What a ``DataStore`` throws to have the context do part of a request, or to refuse it.
public enum DataStoreError: Error, Hashable {
    /// The request's predicate cannot be evaluated.
    case invalidPredicate
    /// The store leaves filtering to the context: it filters every model of the type in memory,
    /// with the predicate's own evaluation, then sorts and pages them.
    case preferInMemoryFilter
    /// The store leaves sorting to the context: it sorts every model of the type in memory,
    /// then pages them.
    case preferInMemorySort
    /// The store does not do what was asked.
    case unsupportedFeature
}

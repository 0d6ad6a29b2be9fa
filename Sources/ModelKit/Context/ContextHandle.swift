/// A context as its models see it, with the store their rows are in: a context has one for its
/// models without a row and one per store. Each model holds its handle strongly, and the context
/// clears its handles when it goes away: one shared object instead of a weak reference (and its
/// side table) per model. The handle keeps the container, so that models can still load their
/// relationships afterwards.
final class ContextHandle {
    /// Unowned and unchecked: the context sets this to nil in its `deinit`, before it is freed,
    /// so a model never reaches a freed context through it.
    unowned(unsafe) var context: ModelContext?
    /// Nil for a model that left its context: it has no relationships left to load.
    let container: ModelContainer?
    let store: StoreIdentity?

    /// The handle of the models that leave the context with a row in ``store``.
    private(set) lazy var detached = ContextHandle(container: nil, store: store)

    init(container: ModelContainer?, store: StoreIdentity?) {
        self.container = container
        self.store = store
    }
}

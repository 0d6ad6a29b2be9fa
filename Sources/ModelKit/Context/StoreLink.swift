/// A context's tie to one of its container's stores: the reader it opened there, its place in
/// the store's change log (its inbox), and how far the context has merged them.
final class StoreLink {
    let store: Store
    /// Reads what other contexts commit to the store; drained before each read.
    let inbox: ChangeInbox
    /// What the context's models with a row in the store point at; see ``ContextHandle``.
    let handle: ContextHandle
    /// The context's reads of the store, opened on first use by ``reader(trace:)``.
    private(set) var reader: StoreReader?
    /// The store's generation when the context last merged; see ``StoreAccess/generation``.
    var mergedGeneration: UInt64
    /// The reader's data version when the context last looked for other processes' commits.
    var readerDataVersion: UInt32?

    /// - Parameter onChange: called after another context commits to the store (see
    ///   ``ChangeInbox/onChange``).
    init(store: Store, container: ModelContainer, onChange: (@Sendable () -> Void)? = nil) {
        self.store = store
        handle = ContextHandle(container: container, store: store.identity)
        mergedGeneration = store.access.generation.load(ordering: .sequentiallyConsistent)
        inbox = store.access.subscribe(onChange: onChange)
    }

    deinit {
        store.access.unsubscribe(inbox)
        if let reader { store.checkIn(reader) }
    }

    /// The context's reader of the store, opened now if it has none.
    func reader(trace: ((String) -> Void)?) throws -> StoreReader {
        if let reader { return reader }
        let opened = try store.openReader(trace: trace)
        reader = opened
        return opened
    }

    /// Whether the store committed since the context last merged it.
    var isBehind: Bool {
        store.access.generation.load(ordering: .relaxed) != mergedGeneration
    }
}

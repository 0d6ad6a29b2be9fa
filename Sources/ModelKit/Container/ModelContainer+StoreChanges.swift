import Foundation
import Synchronization

extension ModelContainer {
    /// Calls `handler` with the names of the entities each commit touched, for commits to the
    /// container's stores that did not come from its own contexts (those post
    /// `ModelContext.didSave`): commits by other processes, and by other containers on the same
    /// store file.
    ///
    /// While any observation of a store is alive, the store checks for other processes' commits
    /// every quarter of a second (one `PRAGMA data_version`), reads what they changed from the
    /// history, and merges it into the main context at once and into other contexts before
    /// their next read. With no observation alive, nothing runs: commits by other processes are
    /// noticed at the next read. The handler runs on a background queue, one call at a time.
    ///
    /// ```swift
    /// let observation = container.observeStoreChanges { entityNames in
    ///     if entityNames.contains("TodoItem") { reload() }
    /// }
    /// ```
    ///
    /// A ModelKit extension: SwiftData has no such call.
    /// - Returns: the observation; the handler is called until it is cancelled or released.
    public func observeStoreChanges(_ handler: @escaping @Sendable (Set<String>) -> Void) -> StoreObservation {
        StoreObservation(container: self, includingOwnCommits: false, handler: handler)
    }

    /// Calls `handler` with the names of the entities each commit touched, for every commit to
    /// the container's stores: its own contexts' too, besides those ``observeStoreChanges(_:)``
    /// reports. The handler runs on a background queue, one call at a time, and may hear
    /// several commits in one call. Package access: `ModelKitSync` pushes after saves with it.
    package func observeAllCommits(_ handler: @escaping @Sendable (Set<String>) -> Void) -> StoreObservation {
        StoreObservation(container: self, includingOwnCommits: true, handler: handler)
    }
}

/// An observation started by ``ModelContainer/observeStoreChanges(_:)``. It ends when cancelled
/// or released.
public final class StoreObservation: Sendable {
    private let feed: Mutex<ChangeFeed?>

    /// Observes each store, reporting "everything changed" there as all of its entities' names.
    /// With `includingOwnCommits`, the container's own contexts' commits are reported too.
    init(container: ModelContainer, includingOwnCommits: Bool, handler: @escaping @Sendable (Set<String>) -> Void) {
        let stores = container.stores.enumerated().map { index, store in
            (origin: ObjectIdentifier(store), names: Set(container.schema.entities.filter { container.storeIndex(of: $0) == index }.map(\.name)))
        }
        let queue = DispatchQueue(label: "ModelKit.StoreObservation")
        let reference = FeedReference()
        let feed = ChangeFeed(container: container) {
            // Called while the committing context holds the writer: the handler runs later, elsewhere.
            queue.async {
                guard let byStore = reference.feed?.drainByStore() else { return }
                var touched: Set<String> = []
                for (store, changes) in zip(stores, byStore) {
                    for change in changes where includingOwnCommits || change.origin != store.origin {
                        touched.formUnion(change.isExternal ? store.names : change.entityNames)
                    }
                }
                if !touched.isEmpty { handler(touched) }
            }
        }
        reference.feed = feed
        self.feed = Mutex(feed)
    }

    /// Stops the observation; the handler is not called for later commits.
    public func cancel() {
        feed.withLock { $0 = nil }
    }
}

/// The observation's feed, as its own delivery callback sees it.
private final class FeedReference: @unchecked Sendable {
    weak var feed: ChangeFeed?
}

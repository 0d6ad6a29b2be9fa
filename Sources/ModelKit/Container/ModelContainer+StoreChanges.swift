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
        StoreObservation(
            stores: stores.enumerated().map { index, store in
                (store, Set(schema.entities.filter { storeIndex(of: $0) == index }.map(\.name)))
            }, handler: handler)
    }
}

/// An observation started by ``ModelContainer/observeStoreChanges(_:)``. It ends when cancelled
/// or released.
public final class StoreObservation: Sendable {
    private let subscriptions: [(access: StoreAccess, inbox: ChangeInbox)]
    private let isCancelled = Atomic<Bool>(false)

    /// Observes each store, reporting "everything changed" there as all of `entityNames`.
    init(stores: [(store: Store, entityNames: Set<String>)], handler: @escaping @Sendable (Set<String>) -> Void) {
        let queue = DispatchQueue(label: "ModelKit.StoreObservation")
        subscriptions = stores.map { store, entityNames in
            let inbox = Self.inbox(of: store, entityNames: entityNames, queue: queue, handler: handler)
            store.access.subscribe(inbox)
            store.access.startWatching()
            return (store.access, inbox)
        }
    }

    private static func inbox(
        of store: Store, entityNames: Set<String>, queue: DispatchQueue, handler: @escaping @Sendable (Set<String>) -> Void
    ) -> ChangeInbox {
        let origin = ObjectIdentifier(store)
        let reference = InboxReference()
        let inbox = ChangeInbox {
            // Called while the committing context holds the writer: the handler runs later, elsewhere.
            queue.async {
                guard let changes = reference.inbox?.drain() else { return }
                var touched: Set<String> = []
                for change in changes where change.origin != origin {
                    if change.isExternal { return handler(entityNames) }
                    touched.formUnion(change.inserted.keys)
                    touched.formUnion(change.updated.keys)
                    touched.formUnion(change.deleted.keys)
                }
                if !touched.isEmpty { handler(touched) }
            }
        }
        reference.inbox = inbox
        return inbox
    }

    deinit { cancel() }

    /// Stops the observation; the handler is not called for later commits.
    public func cancel() {
        guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for (access, inbox) in subscriptions {
            access.unsubscribe(inbox)
            access.stopWatching()
        }
    }
}

/// The observation's inbox, as its own delivery callback sees it.
private final class InboxReference: @unchecked Sendable {
    weak var inbox: ChangeInbox?
}

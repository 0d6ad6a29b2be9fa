import Foundation
import Synchronization

extension ModelContainer {
    /// Calls `handler` with the names of the entities each commit touched, for commits to the
    /// container's store that did not come from its own contexts (those post
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
        StoreObservation(store: store, entityNames: Set(schema.entities.map(\.name)), handler: handler)
    }
}

/// An observation started by ``ModelContainer/observeStoreChanges(_:)``. It ends when cancelled
/// or released.
public final class StoreObservation: Sendable {
    private let access: StoreAccess
    private let inbox: ChangeInbox
    private let isCancelled = Atomic<Bool>(false)

    init(store: Store, entityNames: Set<String>, handler: @escaping @Sendable (Set<String>) -> Void) {
        access = store.access
        let origin = ObjectIdentifier(store)
        let queue = DispatchQueue(label: "ModelKit.StoreObservation")
        let reference = InboxReference()
        inbox = ChangeInbox {
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
        access.subscribe(inbox)
        access.startWatching()
    }

    deinit { cancel() }

    /// Stops the observation; the handler is not called for later commits.
    public func cancel() {
        guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        access.unsubscribe(inbox)
        access.stopWatching()
    }
}

/// The observation's inbox, as its own delivery callback sees it.
private final class InboxReference: @unchecked Sendable {
    weak var inbox: ChangeInbox?
}

import Synchronization

/// The part of an observer that commits reach, on the committing thread: the entities the
/// results depend on, and either the actor to fetch again on or the changes waiting for the next
/// read. The observer sets the closures once, before its feed starts, and they hold it weakly.
final class ObserverSignal: @unchecked Sendable {
    let dependencies = Mutex<Set<String>>([])
    private let scheduler: RefreshScheduler?
    private let waiting = Mutex<[StoreChange]>([])
    private let hasWaiting = Atomic<Bool>(false)
    /// The observer's feed; the observer keeps it.
    weak var feed: ChangeFeed?
    /// Fetches again after `changes`; called on the observer's actor.
    var refresh: (([StoreChange]) -> Void)?
    /// Tells the observer's observers that the results changed; called on any thread.
    var announce: (() -> Void)?

    init(isolation: (any Actor)?) {
        scheduler = isolation.map(RefreshScheduler.init)
    }

    var hasIsolation: Bool { scheduler != nil }
    var hasWaitingChanges: Bool { hasWaiting.load(ordering: .acquiring) }

    func takeWaitingChanges() -> [StoreChange] {
        waiting.withLock { waiting in
            hasWaiting.store(false, ordering: .releasing)
            defer { waiting = [] }
            return waiting
        }
    }

    /// Called by the feed after a commit.
    func changeArrived() {
        if let scheduler {
            scheduler.schedule { [self] _ in
                let changes = relevant(feed?.drain() ?? [])
                if !changes.isEmpty { refresh?(changes) }
            }
        } else {
            let changes = relevant(feed?.drain() ?? [])
            guard !changes.isEmpty else { return }
            waiting.withLock { waiting in
                waiting += changes
                hasWaiting.store(true, ordering: .releasing)
            }
            announce?()
        }
    }

    /// The changes that name an entity the results depend on, or whose rows are unknown.
    private func relevant(_ changes: [StoreChange]) -> [StoreChange] {
        let dependencies = dependencies.withLock { $0 }
        return changes.filter { $0.isExternal || !$0.entityNames.isDisjoint(with: dependencies) }
    }

    /// The entities whose saves can change the results: the element's and its subclasses', and
    /// when a predicate or sort may follow relationships, every entity reachable through them.
    static func dependencies<Element>(of entity: Schema.Entity, descriptor: FetchDescriptor<Element>) -> Set<String> {
        var names = Set(entity.typeNames)
        guard descriptor.predicate != nil || !descriptor.sortBy.isEmpty else { return names }
        var queue = [entity]
        while let next = queue.popLast() {
            for relationship in next.orderedRelationships where names.insert(relationship.target.name).inserted {
                names.formUnion(relationship.target.typeNames)
                queue.append(relationship.target)
            }
        }
        return names
    }
}

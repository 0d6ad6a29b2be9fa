import Dispatch
import Synchronization

/// What an observer hears of a container's commits: every commit to its stores, by any context
/// of the process, by other processes on a SQLite file (checked every quarter second while the
/// feed lives) and by other instances on a PostgreSQL database.
///
/// `onChange` runs on the committing thread, after the change is kept: it should only schedule
/// work, which then ``drain()``s the feed. The feed stops when released.
final class ChangeFeed: Sendable {
    private let subscriptions: [(access: StoreAccess, inbox: ChangeInbox)]

    /// - Parameter reads: whether the feed's owner drains it; a feed only told of commits (a
    ///   history observer's, which reads the history instead) keeps nothing in the stores' logs.
    init(container: ModelContainer, reads: Bool = true, onChange: @escaping @Sendable () -> Void) {
        subscriptions = container.stores.map { store in
            let inbox = store.access.subscribe(reads: reads, onChange: onChange)
            store.access.startWatching()
            return (store.access, inbox)
        }
    }

    /// Takes every change waiting, oldest first.
    func drain() -> [StoreChange] {
        subscriptions.flatMap { $0.inbox.drain() }
    }

    /// Takes every change waiting, by store, in the container's order of stores.
    func drainByStore() -> [[StoreChange]] {
        subscriptions.map { $0.inbox.drain() }
    }

    deinit {
        for (access, inbox) in subscriptions {
            access.unsubscribe(inbox)
            access.stopWatching()
        }
    }
}

/// Runs an observer's work on the actor it was made on, once however many changes arrive
/// meanwhile.
final class RefreshScheduler: Sendable {
    private let isolation: any Actor
    private let scheduled = Atomic<Bool>(false)

    init(isolation: any Actor) {
        self.isolation = isolation
    }

    /// Schedules `work` unless it is scheduled and has not started yet.
    func schedule(_ work: @escaping @Sendable (isolated any Actor) -> Void) {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        hop(to: isolation) { [self] isolation in
            scheduled.store(false, ordering: .releasing)
            work(isolation)
        }
    }
}

/// Runs `work` on `isolation` from any thread. The task starts on a queue of its own rather than
/// the cooperative pool, which synchronous database work may hold, and goes straight to the actor.
func hop(to isolation: any Actor, _ work: @escaping @Sendable (isolated any Actor) -> Void) {
    Task(executorPreference: HopExecutor.shared) { await run(work, on: isolation) }
}

private func run(_ work: @Sendable (isolated any Actor) -> Void, on isolation: isolated any Actor) {
    work(isolation)
}

/// Where an observer's task starts before it hops to the observer's actor: one serial queue.
private final class HopExecutor: TaskExecutor {
    static let shared = HopExecutor()
    private let queue = DispatchQueue(label: "ModelKit.ObserverHop")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

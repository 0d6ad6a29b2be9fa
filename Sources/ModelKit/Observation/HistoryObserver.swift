import Dispatch
import Foundation
import Observation
import Synchronization

/// Counts new history transactions that matter to you: ``eventCounter`` goes up when
/// transactions by the given authors, touching the observed model types, are committed, by this
/// process's contexts, other processes on the same SQLite file, or other instances on the same
/// PostgreSQL database.
///
/// Observe the counter, then read the transactions with ``ModelContext/fetchHistory(_:)``, as a
/// sync engine does:
///
/// ```swift
/// let observer = try HistoryObserver(observedModels: [Trip.self], authors: ["app"], modelContainer: container)
/// withObservationTracking { _ = observer.eventCounter } onChange: {
///     Task { await sync.pushChanges() }
/// }
/// ```
///
/// The observer keeps a token per store, the newest transaction it has read: each check reads
/// only the transactions after it, off the observer's actor. Given no tokens, it starts at each
/// store's newest transaction, so only later ones count.
public final class HistoryObserver: Observable, @unchecked Sendable {
    // Unchecked: the lets are immutable, the counter is atomic, and the context is used only
    // on `queue`.

    /// The container whose stores the observer watches.
    public let modelContainer: ModelContainer
    /// The model types whose changes count; every type when empty.
    public let observedModels: [any PersistentModel.Type]

    /// The authors whose transactions count; every author when empty.
    public let authors: Set<String>
    private let entityNames: Set<String>
    private let registrar = ObservationRegistrar()
    private let counts = HistoryObserverCounts()
    private let isolation: (any Actor)?
    private let queue = DispatchQueue(label: "ModelKit.HistoryObserver")
    /// Read and written on `queue` only.
    private let context: ModelContext
    private var tokens: [String: Int64]
    private var feed: ChangeFeed?

    /// An observer of `modelContainer`'s history from `historyTokens` (by store identifier), or
    /// from each store's newest transaction when nil.
    /// - Throws: ``ModelKitError/historyTokenOfAnotherStore(_:storeIdentifier:)`` for a token
    ///   of a store the container does not have; what reading the newest tokens throws.
    public convenience init(
        historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
        authors: Set<String> = [], modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            tokens: historyTokens, observedModels: observedModels, authors: authors, modelContainer: modelContainer,
            actor: isolation)
    }

    private init(
        tokens historyTokens: [String: any HistoryToken]?, observedModels: [any PersistentModel.Type], authors: Set<String>,
        modelContainer: ModelContainer, actor: (any Actor)?
    ) throws {
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        isolation = actor
        // A model class observes its subclasses too: their rows are its rows.
        entityNames = Set(observedModels.flatMap { modelContainer.schema.entity(for: $0)?.typeNames ?? [$0.entityName] })
        context = ModelContext(modelContainer)
        tokens = try Self.startingTokens(historyTokens, in: context)
        let reference = WeakHistoryObserver()
        feed = ChangeFeed(container: modelContainer, reads: false) { reference.observer?.scheduleCheck() }
        reference.observer = self
    }

    /// How many times the observer found new relevant transactions. It goes up by one per check,
    /// however many transactions the check found.
    public var eventCounter: Int {
        registrar.access(self, keyPath: \.eventCounter)
        return counts.events.load(ordering: .acquiring)
    }

    // MARK: Checking

    private func scheduleCheck() {
        guard !counts.checkScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            counts.checkScheduled.store(false, ordering: .releasing)
            if checkForRelevantTransactions() { count() }
        }
    }

    /// Reads each store's transactions after its token, advances the tokens, and says whether
    /// any was by one of the authors and touched an observed type. A token older than deleted
    /// history counts as a change, since what changed is unknown, and moves to the newest.
    private func checkForRelevantTransactions() -> Bool {
        var found = false
        for link in context.links where link.store.recordsHistory {
            let identifier = link.store.identifier
            do {
                var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
                if let value = tokens[identifier] {
                    let token = DefaultHistoryToken(storeIdentifier: identifier, value: value)
                    descriptor.predicate = #Predicate { $0.token > token }
                }
                let transactions = try context.fetchHistory(descriptor, from: link)
                if let newest = transactions.last { tokens[identifier] = newest.token.value }
                found = found || transactions.contains(where: isRelevant)
            } catch ModelKitError.historyTokenExpired {
                tokens[identifier] = try? Self.newestToken(of: link, in: context)
                found = true
            } catch {
                ModelKitDebugLog.error("a HistoryObserver could not read the history of store \(identifier): \(error)")
            }
        }
        return found
    }

    private func isRelevant(_ transaction: DefaultHistoryTransaction) -> Bool {
        guard authors.isEmpty || transaction.author.map(authors.contains) == true else { return false }
        return entityNames.isEmpty || transaction.changes.contains { entityNames.contains($0.changedPersistentIdentifier.entityName) }
    }

    /// Adds one to the counter, on the observer's actor when it has one.
    private func count() {
        guard let isolation else { return increment() }
        hop(to: isolation) { _ in self.increment() }
    }

    private func increment() {
        registrar.withMutation(of: self, keyPath: \.eventCounter) {
            _ = counts.events.add(1, ordering: .releasing)
        }
    }

    // MARK: Tokens

    /// The tokens to start from, by store identifier: the given ones, or each recording store's
    /// newest.
    private static func startingTokens(_ given: [String: any HistoryToken]?, in context: ModelContext) throws -> [String: Int64] {
        let recording = context.links.filter(\.store.recordsHistory)
        guard let given else {
            var tokens: [String: Int64] = [:]
            for link in recording { tokens[link.store.identifier] = try newestToken(of: link, in: context) }
            return tokens
        }
        var tokens: [String: Int64] = [:]
        for (identifier, token) in given {
            guard let token = token as? DefaultHistoryToken, recording.contains(where: { $0.store.identifier == identifier }) else {
                let value = (token as? DefaultHistoryToken)?.value ?? 0
                throw ModelKitError.historyTokenOfAnotherStore(
                    DefaultHistoryToken(storeIdentifier: token.storeIdentifier, value: value), storeIdentifier: identifier)
            }
            tokens[identifier] = token.value
        }
        return tokens
    }

    /// The token of the store's newest transaction: one query, newest first, limit one. Nil for
    /// an empty history.
    private static func newestToken(of link: StoreLink, in context: ModelContext) throws -> Int64? {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.sortBy = [SortDescriptor(\.token, order: .reverse)]
        descriptor.fetchLimit = 1
        return try context.fetchHistory(descriptor, from: link).first?.token.value
    }
}

/// The observer, as its feed's callback reaches it without keeping it alive.
private final class WeakHistoryObserver: Sendable {
    nonisolated(unsafe) weak var observer: HistoryObserver?
}

/// The observer's atomics: how many events it counted, and whether a check is waiting to run.
private final class HistoryObserverCounts: Sendable {
    let events = Atomic<Int>(0)
    let checkScheduled = Atomic<Bool>(false)
}

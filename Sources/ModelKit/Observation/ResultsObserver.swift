import Foundation
import Observation
import Synchronization

/// Fetched results that stay current: the models a fetch descriptor describes, fetched again as
/// saves change them, in this context, in other contexts of the container, in other processes
/// on the same SQLite file, and in other instances on the same PostgreSQL database.
///
/// The observer is `Observable`: read ``results`` (or ``sections``) inside
/// `withObservationTracking`, or from SwiftUI, and you hear of each save that changes them.
/// Saves of model types the results do not depend on are not looked at.
///
/// ```swift
/// @MainActor @Observable final class TripsViewModel {
///     let observer: ResultsObserver<Trip, Never>
///     init(context: ModelContext) throws {
///         observer = try ResultsObserver(sortBy: [SortDescriptor(\.startDate)], modelContext: context)
///     }
///     var upcoming: [Trip] { observer.results.filter { $0.startDate > .now } }
/// }
/// ```
///
/// Use `Never` as `SectionTitle` for flat results, or `String` with a `sectionBy` key path for
/// ``sections``.
///
/// An observer made on an actor (the main actor, a model actor) fetches again on that actor,
/// soon after each relevant save; the models are its context's, used there. Made outside any
/// actor, it cannot fetch on its own: it reports a relevant save at once, and fetches again when
/// ``results`` is next read.
///
/// What a save costs the observer: nothing for unrelated model types. For unpaged results in
/// key order, or sorted on SQLite, one query over the saved rows' keys tells which are results
/// now, and each goes to its place in memory. Otherwise the result's keys are read again, in one
/// query, and only rows not in memory are loaded.
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable>: Observable {
    /// The context the observer fetches from, and whose saves (and whose container's) it follows.
    public let modelContext: ModelContext
    /// The key path whose value groups the results into ``sections``; nil for flat results.
    public let sectionBy: PartialKeyPath<Element>?

    let sectionTitle: ((Element) -> SectionTitle)?
    private let sectionSort: SortDescriptor<Element>?
    private let registrar = ObservationRegistrar()
    var descriptor: FetchDescriptor<Element>
    var models: [Element] = []
    /// The results' primary keys, by position; ``inMemory`` for an unsaved model.
    var keys: [Int64] = []
    private var collection = FetchResultsCollection<Element>(ResultBatches([]))
    private var grouped: SectionedResults<Element, SectionTitle>?
    /// Whether ``results`` were set from outside: the next save reads them again in full.
    var isSetByHand = false
    let entity: Schema.Entity
    let signal: ObserverSignal
    private var feed: ChangeFeed?

    init(
        descriptor: FetchDescriptor<Element>, sectionBy: PartialKeyPath<Element>?, sectionSort: SortDescriptor<Element>?,
        sectionTitle: ((Element) -> SectionTitle)?, modelContext: ModelContext, isolation: (any Actor)?
    ) throws {
        self.modelContext = modelContext
        self.sectionBy = sectionBy
        self.sectionSort = sectionSort
        self.sectionTitle = sectionTitle
        var descriptor = descriptor
        if let sectionSort { descriptor.sortBy.insert(sectionSort, at: 0) }
        self.descriptor = descriptor
        entity = try modelContext.entity(for: Element.self)
        signal = ObserverSignal(isolation: isolation)
        signal.dependencies.withLock { $0 = ObserverSignal.dependencies(of: entity, descriptor: descriptor) }
        try reload(notifying: false, changes: [])
        let signal = signal
        signal.refresh = { [weak self] changes in self?.refresh(with: changes) }
        signal.announce = { [weak self] in self?.reportPendingChange() }
        let feed = ChangeFeed(container: modelContext.container) { signal.changeArrived() }
        signal.feed = feed
        self.feed = feed
    }

    // MARK: Reading

    /// The current results: the models the fetch descriptor describes, as of the last save the
    /// observer heard of.
    public var results: FetchResultsCollection<Element> {
        get {
            registrar.access(self, keyPath: \.results)
            applyWaitingChanges()
            return collection
        }
        set {
            registrar.withMutation(of: self, keyPath: \.results) {
                models = Array(newValue)
                keys = models.map { $0._$modelKit.rowID ?? Self.inMemory }
                collection = newValue
                isSetByHand = true
            }
        }
    }

    /// The results grouped by ``sectionBy``, sections in the order their titles first appear;
    /// nil when the observer has no section key path (`SectionTitle == Never`).
    ///
    /// The section key path is the first sort descriptor, so each section's results are
    /// contiguous. With an optional `String` key path, results whose value is nil are in the
    /// section titled `""`.
    public var sections: SectionedResults<Element, SectionTitle>? {
        get {
            registrar.access(self, keyPath: \.sections)
            applyWaitingChanges()
            return grouped
        }
        set {
            registrar.withMutation(of: self, keyPath: \.sections) { grouped = newValue }
        }
    }

    /// What the observer fetches: the predicate, sort (the section key path first), and other
    /// options. Change it through ``filterBy`` and ``sortBy``.
    public var fetchDescriptor: FetchDescriptor<Element> {
        registrar.access(self, keyPath: \.fetchDescriptor)
        return descriptor
    }

    /// The predicate results match. Setting it fetches again.
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set {
            var descriptor = descriptor
            descriptor.predicate = newValue
            replace(descriptor)
        }
    }

    /// The sort descriptors the results are ordered by, the section key path's first when there
    /// is one. Setting them fetches again; the section key path stays first.
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set {
            var descriptor = descriptor
            descriptor.sortBy = newValue
            if let sectionSort, newValue.first != sectionSort { descriptor.sortBy.insert(sectionSort, at: 0) }
            replace(descriptor)
        }
    }

    // MARK: Following saves

    /// Called on the observer's actor after relevant saves, or on a read after them.
    func refresh(with changes: [StoreChange]) {
        guard !changes.isEmpty else { return }
        do {
            if try !splice(changes) { try reload(notifying: true, changes: changes) }
        } catch {
            ModelKitDebugLog.error("a ResultsObserver of \(Element.self) could not fetch after a save: \(error)")
        }
    }

    /// Applies what arrived since the last read, for an observer without an actor.
    private func applyWaitingChanges() {
        guard !signal.hasIsolation, signal.hasWaitingChanges else { return }
        refresh(with: signal.takeWaitingChanges())
    }

    private func replace(_ descriptor: FetchDescriptor<Element>) {
        registrar.withMutation(of: self, keyPath: \.fetchDescriptor) { self.descriptor = descriptor }
        signal.dependencies.withLock { $0 = ObserverSignal.dependencies(of: entity, descriptor: descriptor) }
        do {
            try reload(notifying: true, changes: [.external])
        } catch {
            ModelKitDebugLog.error("a ResultsObserver of \(Element.self) could not fetch with its new descriptor: \(error)")
        }
    }

    /// Reads the results' keys again and compares them with the ones held: the same keys in the
    /// same order load nothing, and report a change only when `changes` saved one of them.
    /// Otherwise the models held are kept and only rows not among them are loaded.
    private func reload(notifying: Bool, changes: [StoreChange]) throws {
        guard let (fresh, entity) = try modelContext.observedKeys(descriptor) else {
            let models = try modelContext.fetch(descriptor)
            return show(models, keys: models.map { $0._$modelKit.rowID ?? Self.inMemory }, notifying: notifying)
        }
        let inMemory = fresh.keys.contains(Self.inMemory)
        if !inMemory, fresh.keys == keys {
            if notifying, changes.contains(where: \.isExternal) || touches(changes) { announceChange() }
            return
        }
        var held: [Int64: Int] = [:]
        held.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() where key != Self.inMemory { held[key] = position }
        let missing = fresh.keys.filter { $0 != Self.inMemory && held[$0] == nil }
        let loaded = try modelContext.models(of: Element.self, keyed: missing, entity: entity)
        var models: [Element] = []
        var keys: [Int64] = []
        models.reserveCapacity(fresh.count)
        keys.reserveCapacity(fresh.count)
        for (position, key) in fresh.keys.enumerated() {
            if key == Self.inMemory {
                models.append(fresh.model(at: position)!)
            } else if let index = held[key] {
                models.append(self.models[index])
            } else if let model = loaded[key] {
                models.append(model)
            } else {
                continue  // deleted since the keys were read
            }
            keys.append(key)
        }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty, !missing.isEmpty {
            try modelContext.prefetch(descriptor.relationshipKeyPathsForPrefetching, of: missing.compactMap { loaded[$0] })
        }
        show(models, keys: keys, notifying: notifying)
    }

    /// Tells observers that results will change, from the saving thread, for an observer without
    /// an actor: it touches no state; the next read fetches.
    private func reportPendingChange() {
        registrar.withMutation(of: self, keyPath: \.results) {
            registrar.withMutation(of: self, keyPath: \.sections) {}
        }
    }

    /// Reports a change to results that are the same models as before. Their sections are
    /// grouped again: a saved row may have a new title in the same place.
    func announceChange() {
        registrar.withMutation(of: self, keyPath: \.results) {
            registrar.withMutation(of: self, keyPath: \.sections) {
                if let sectionTitle { grouped = SectionedResults(models, title: sectionTitle) }
            }
        }
    }

    func show(_ fresh: [Element], keys: [Int64], notifying: Bool) {
        let update = {
            self.models = fresh
            self.keys = keys
            self.isSetByHand = false
            self.collection = FetchResultsCollection(ResultBatches(fresh))
            if let sectionTitle = self.sectionTitle { self.grouped = SectionedResults(fresh, title: sectionTitle) }
        }
        guard notifying else { return update() }
        registrar.withMutation(of: self, keyPath: \.results) {
            registrar.withMutation(of: self, keyPath: \.sections, update)
        }
    }

    /// Whether `changes` saved or deleted a row among the results.
    private func touches(_ changes: [StoreChange]) -> Bool {
        var saved = Set<Int64>()
        let names = entity.typeNames  // the element's class and its subclasses
        for change in changes {
            for list in [change.inserted, change.updated, change.deleted] {
                for name in names { saved.formUnion(list[name] ?? []) }
            }
        }
        return !saved.isEmpty && keys.contains(where: saved.contains)
    }

    /// The key standing for a model in memory.
    static var inMemory: Int64 { UnloadedResults<Element>.inMemory }
}

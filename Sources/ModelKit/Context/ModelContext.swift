import Foundation
import Synchronization

/// A scratch pad of models: fetch them, change them, insert and delete them, then save.
///
/// A context is not `Sendable`; use it from one isolation domain. ``ModelContainer/mainContext``
/// is the main actor's, with autosave on. Within one context, a stored row is always the same
/// instance.
public final class ModelContext {
    /// The container the context reads and writes. The context keeps it alive, so a context
    /// outliving every other reference to its container still works.
    public let container: ModelContainer

    /// Whether changes are saved automatically soon after they are made. On for the main context.
    public var autosaveEnabled: Bool
    /// Who is saving, recorded in the history transaction of each save (see
    /// ``HistoryTransaction/author``): set it to tell your own writes apart, such as `"sync"` or
    /// `"widget"`.
    public var author: String?
    /// The undo manager that records the context's inserts, deletes and property changes
    /// (relationships included), as in SwiftData; nil, the default, records nothing. See
    /// <doc:UndoAndRedo>.
    public var undoManager: UndoManager?
    /// Above zero while a change already recorded for undo runs, so that what it changes in turn
    /// (the inverse of a relationship) is not recorded again: undoing the change restores it.
    var undoSuppression = 0
    let isMainContext: Bool
    private var autosaveScheduled = false

    /// The context's ties to the container's stores, one per store, in the container's order.
    let links: [StoreLink]
    /// What the context's models without a row point at; see ``ContextHandle``.
    let handle: ContextHandle
    /// Called with the text of each SQL statement the context runs. For tests and debugging.
    public var statementTrace: ((String) -> Void)? {
        didSet { for link in links { link.reader?.trace = statementTrace } }
    }

    /// The identifier of the context's ``editingState``, made on first use: Foundation makes a
    /// `UUID` by opening, reading and closing `/dev/urandom`, three system calls a context that
    /// never meets a custom store would pay for nothing.
    lazy var editingStateID = UUID()
    /// The custom stores (by their links' index) whose ``DataStore/initializeState(for:)`` the
    /// context called, to call ``DataStore/invalidateState(for:)`` when it goes.
    var initializedCustomStores: Set<Int> = []

    /// Models loaded from the store, by entity and primary key.
    let registered = IdentityMap()
    /// The pending models. Each change of a model and each save reads or writes them, so they are
    /// not checked for exclusive access (about 80 instructions a use): their methods call no code
    /// that could reach the context again.
    @exclusivity(unchecked) var inserted = PendingModels()
    @exclusivity(unchecked) var changed = PendingModels()
    @exclusivity(unchecked) var deleted = PendingModels()
    /// Changes to lists not loaded yet, made through their inverse to-one.
    var deferredListChanges = DeferredListChanges()
    /// The relationships the context's models may hold loaded, for its teardown. Noted on
    /// relationship writes, a hot path, so not checked for exclusive access: the context is used
    /// from one thread at a time.
    @exclusivity(unchecked) var loadedRelationships = LoadedRelationships()

    /// A context of `container`.
    public init(_ container: ModelContainer) {
        self.container = container
        handle = ContextHandle(container: container, store: nil)
        autosaveEnabled = false
        isMainContext = false
        links = container.stores.map { StoreLink(store: $0, container: container) }
        statementTrace = container.statementTraceOfNewContexts
        claimHandles()
    }

    /// The main context. It and its container keep each other alive, as in SwiftData: apps keep
    /// one container for their lifetime. Other contexts' saves are merged into it on the main
    /// actor as they land, and before each read.
    init(mainContextOf container: ModelContainer) {
        self.container = container
        handle = ContextHandle(container: container, store: nil)
        autosaveEnabled = true
        isMainContext = true
        let reference = MainContextReference()
        links = container.stores.map { StoreLink(store: $0, container: container) { reference.scheduleMerge() } }
        statementTrace = container.statementTraceOfNewContexts
        claimHandles()
        reference.context = self
    }

    deinit {
        invalidateCustomStoreStates()
        handle.context = nil
        for link in links { link.handle.context = nil }
        unloadRelationships()
    }

    private func claimHandles() {
        handle.context = self
        for link in links { link.handle.context = self }
    }

    /// The handle a model of this context holds: the context's own while the model has no row,
    /// the link's to its entity's store once it has one.
    func handle(for storage: ModelStorage, of entity: Schema.Entity) -> ContextHandle {
        storage.rowID == nil ? handle : link(for: entity).handle
    }

    /// The tie to the store that holds `entity`.
    func link(for entity: Schema.Entity) -> StoreLink {
        links[container.storeIndex(of: entity)]
    }

    /// The context's reads of the store that holds `entity`, on a reader opened on first use.
    /// Writes go through the store's writer.
    func reader(for entity: Schema.Entity) throws -> StoreReader {
        try reader(of: link(for: entity))
    }

    /// What `link`'s store keeps for this context's writes.
    func session(of link: StoreLink) -> StoreSession {
        StoreSession(link: link, author: author, trace: statementTrace)
    }

    /// The context's reads of `link`'s store, on a reader opened on first use.
    func reader(of link: StoreLink) throws -> StoreReader {
        try link.reader(trace: statementTrace)
    }

    /// The schema entity of `type`, or a typed error saying how to add it.
    func entity(for type: any PersistentModel.Type) throws -> Schema.Entity {
        guard let entity = container.schema.entity(for: type) else {
            throw ModelKitError.modelNotInSchema(String(describing: type))
        }
        return entity
    }

    // MARK: Changes

    /// Whether the context has inserts, changes or deletes it has not saved.
    public var hasChanges: Bool { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }

    /// Models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { inserted.models }
    /// Stored models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { changed.models }
    /// Models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { deleted.models }

    /// Adds a new model to the context; the next save stores it. Inserting a model the context
    /// already has does nothing. A model loaded from another store (through a context that is
    /// gone) is inserted as a new model, with a new row.
    ///
    /// The model's type must be in the container's schema: inserting any other type is a
    /// programming error, and stops with a message that says how to fix it.
    public func insert<T: PersistentModel>(_ model: T) {
        // The model's own class: a subclass reached through its base type is stored as itself.
        let modelType = type(of: model)
        guard let entity = container.schema.entity(for: modelType) else {
            preconditionFailure("\(modelType) is not in the container's schema. Add \(modelType).self to the ModelContainer's types.")
        }
        let storage = model._$modelKit
        if storage.context === self {
            if deleted.remove(model) {
                storage.isDeleted = false
                registerUndo(ofInsert: model)
                scheduleAutosave()
            }
            return
        }
        precondition(storage.context == nil, "\(modelType) is already registered in another ModelContext")
        if storage.rowID != nil, storage.storeIdentifier != container.store(for: entity).identifier {
            // A row of another store: here it is a new model, never a reference to a row that
            // happens to have the same key. Relationships it never loaded stay empty.
            storage.rowID = nil
            storage.faults = nil
        }
        storage.entity = entity
        storage.enter(handle(for: storage, of: entity))
        storage.isDeleted = false
        loadedRelationships.noteInsert(of: entity)
        if storage.rowID == nil {
            storage.isInserted = true
            inserted.add(model)
            linkInverses(of: model)
            registerUndo(ofInsert: model)
        } else {
            registered.insert(model, for: RowKey(model))
        }
        scheduleAutosave()
    }

    /// Marks a model for deletion at the next save. An inserted model that was never saved is
    /// simply dropped.
    public func delete<T: PersistentModel>(_ model: T) {
        let storage = model._$modelKit
        guard storage.context === self, !storage.isDeleted else { return }
        if inserted.remove(model) {
            storage.isInserted = false
            storage.leaveContext()
        } else {
            changed.remove(model)
            deleted.add(model)
        }
        storage.isDeleted = true
        registerUndo(ofDelete: model)
        scheduleAutosave()
    }

    /// Called by a model's setter: records that a stored model changed.
    func modelDidChange(_ model: some PersistentModel) {
        let storage = model._$modelKit
        guard !storage.isInserted, !storage.isDeleted else { return }
        changed.add(model)
        scheduleAutosave()
    }

    /// Brings the context up to date with what other contexts and processes committed, as a read
    /// would. (Inverse relationships and change tracking are kept up to date as changes are made,
    /// so there is nothing else to process, unlike SwiftData.)
    public func processPendingChanges() {
        mergeChanges()
    }

    /// Discards unsaved changes: inserted models leave the context, and changed and deleted ones
    /// come back with their stored values (a model changed and then deleted included).
    public func rollback() {
        for model in inserted.models { release(unsaved: model) }
        for model in deleted.models {
            model._$modelKit.isDeleted = false
        }
        let restored = changed.models + deleted.models
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        for model in restored {
            do {
                try reload(model)
            } catch {
                ModelKitDebugLog.log("rollback could not reload a \(type(of: model)): \(error)")
            }
        }
    }

    /// Takes an inserted model that was never saved out of the context, as if never inserted.
    func release(unsaved model: any PersistentModel) {
        let storage = model._$modelKit
        storage.isInserted = false
        storage.isDeleted = false
        storage.leaveContext()
    }

    /// Saves soon after a change, on the main actor, if this is the main context with autosave on.
    private func scheduleAutosave() {
        guard isMainContext, autosaveEnabled, !autosaveScheduled else { return }
        autosaveScheduled = true
        // Only the main context autosaves, and only the main actor uses it.
        let reference = MainContextReference()
        reference.context = self
        Task { @MainActor in
            guard let context = reference.context else { return }
            context.autosaveScheduled = false
            guard context.autosaveEnabled, context.hasChanges else { return }
            do {
                try context.save()
            } catch {
                ModelKitDebugLog.error("autosave of the main context failed: \(error)")
            }
        }
    }
}

/// Lets tasks on the main actor reach the main context without keeping it alive.
private final class MainContextReference: @unchecked Sendable {
    weak var context: ModelContext?
    private let mergeScheduled = Atomic<Bool>(false)

    /// Merges other contexts' changes on the main actor soon, once however many arrive meanwhile.
    func scheduleMerge() {
        guard !mergeScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { @MainActor in
            self.mergeScheduled.store(false, ordering: .releasing)
            self.context?.mergeChanges()
        }
    }
}

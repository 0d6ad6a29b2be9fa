#if canImport(SwiftData)
import Foundation
import Observation
import SwiftData
#if !canImport(Darwin)
import Synchronization
#endif

/// Tells Observation when a save through one container touches one model type (or one of its
/// subclasses, whose rows are also its rows).
///
/// ``Application/ModelState/models`` registers a read of the signal; the signal listens for
/// `ModelContext.didSave` from any context of its container and reports a change when the saved
/// identifiers include its entity. On ModelKit it also hears commits by other processes (and
/// other containers on the store file): from a read until the next change it reports, it keeps
/// a store observation, so a store nobody has read since its last change is not watched. It
/// holds no models: the context stays the source of truth.
final class ModelChangeSignal: Observable, @unchecked Sendable {
    private let registrar = ObservationRegistrar()
    private var observer: (any NSObjectProtocol)?
    private weak var container: ModelContainer?
    private let entityNames: Set<String>
    #if !canImport(Darwin)
    /// Watches the store for other processes' commits, from a read until the next change.
    private let watch = Mutex<StoreObservation?>(nil)
    #endif

    init<Model: PersistentModel>(container: ModelContainer, model: Model.Type) {
        self.container = container
        let entityNames = Self.entityNames(of: Model.self, in: container.schema)
        self.entityNames = entityNames
        let keys = [
            ModelContext.NotificationKey.insertedIdentifiers,
            ModelContext.NotificationKey.updatedIdentifiers,
            ModelContext.NotificationKey.deletedIdentifiers,
        ].map(\.rawValue)
        observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) {
            [weak self, weak container] notification in
            guard let self, let container, let context = notification.object as? ModelContext,
                context.container === container
            else { return }
            let info = notification.userInfo ?? [:]
            let touched = keys.contains { key in
                (info[key] as? [PersistentIdentifier])?.contains { entityNames.contains($0.entityName) } ?? false
            }
            if touched { changed() }
        }
    }

    /// The entity names of `model` and of its subclasses in `schema`.
    private static func entityNames<Model: PersistentModel>(of model: Model.Type, in schema: Schema) -> Set<String> {
        var names: Set<String> = [String(describing: Model.self)]
        var pending = schema.entities.filter { names.contains($0.name) }
        while let entity = pending.popLast() {
            for subentity in entity.subentities where names.insert(subentity.name).inserted { pending.append(subentity) }
        }
        return names
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// Whether the signal listens to `container`.
    func observes(_ container: ModelContainer) -> Bool {
        self.container === container
    }

    /// Registers a read with Observation.
    func access() {
        registrar.access(self, keyPath: \.version)
        #if !canImport(Darwin)
        watch.withLock { watch in
            guard watch == nil, let container else { return }
            let observed = entityNames
            watch = container.observeStoreChanges { [weak self] entityNames in
                if !entityNames.isDisjoint(with: observed) { self?.changed() }
            }
        }
        #endif
    }

    private func changed() {
        #if !canImport(Darwin)
        watch.withLock { $0 = nil }
        #endif
        registrar.withMutation(of: self, keyPath: \.version) {}
    }

    /// The observed key; it carries no value.
    var version: Void { () }
}
#endif

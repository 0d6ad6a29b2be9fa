#if canImport(SwiftData)
import Foundation
import Observation
import SwiftData

/// Tells Observation when a save through one container touches one model type.
///
/// ``Application/ModelState/models`` registers a read of the signal; the signal listens for
/// `ModelContext.didSave` from any context of its container and reports a change when the saved
/// identifiers include its entity. It holds no models: the context stays the source of truth.
final class ModelChangeSignal: Observable, @unchecked Sendable {
    private let registrar = ObservationRegistrar()
    private var observer: (any NSObjectProtocol)?
    private weak var container: ModelContainer?

    init(container: ModelContainer, entityName: String) {
        self.container = container
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
                (info[key] as? [PersistentIdentifier])?.contains { $0.entityName == entityName } ?? false
            }
            if touched { changed() }
        }
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
    }

    private func changed() {
        registrar.withMutation(of: self, keyPath: \.version) {}
    }

    /// The observed key; it carries no value.
    var version: Void { () }
}
#endif

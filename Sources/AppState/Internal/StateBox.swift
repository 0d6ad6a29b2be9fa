import Observation

/// The storage behind one state key, with its own observation registrar, so a write notifies the
/// observers of this key only.
///
/// Only the main actor touches `value` (every state accessor is `@MainActor`); the box is Sendable
/// so that the application's cache, which any thread can reach, may hold it.
final class StateBox<Value>: Observable, @unchecked Sendable {
    private let registrar = ObservationRegistrar()
    private var stored: Value
    private let anchor: ChangeAnchor

    init(_ value: Value, anchor: ChangeAnchor) {
        stored = value
        self.anchor = anchor
    }

    var value: Value {
        get {
            registrar.access(self, keyPath: \.value)
            anchor.access()
            return stored
        }
        set {
            registrar.withMutation(of: self, keyPath: \.value) { stored = newValue }
        }
    }
}

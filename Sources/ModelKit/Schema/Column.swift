/// How the engine stores one persisted property and writes it back to a model, behind one
/// reference so that per-row loops copy a single pointer.
final class Column: @unchecked Sendable {
    let codec: ValueCodec
    private let write: (AnyObject, Any) -> Void

    init<Model: PersistentModel, Value>(keyPath: ReferenceWritableKeyPath<Model, Value>, codec: ValueCodec) {
        self.codec = codec
        write = { model, value in (model as! Model)[keyPath: keyPath] = value as! Value }
    }

    /// Sets the property on `model` from a decoded value.
    func assign(_ value: Any, to model: AnyObject) {
        write(model, value)
    }
}

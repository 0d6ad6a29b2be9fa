/// An insert in a ModelKit store's history. A model whose entity is no longer in the
/// container's schema appears as a ``MissingModel`` change, with its entity's name in
/// ``changedPersistentIdentifier``.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    public let changeIdentifier: Int64
    public let changedPersistentIdentifier: PersistentIdentifier
    public let transactionIdentifier: Int64
}

/// An update in a ModelKit store's history: which properties the save wrote.
///
/// An insert whose `@Attribute(.unique)` value was already stored updates that row: it is
/// recorded as an update of every stored property.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    /// The type of ``updatedAttributes``' elements.
    public typealias PropertyUpdate = PartialKeyPath<Model> & Sendable

    public let changeIdentifier: Int64
    public let changedPersistentIdentifier: PersistentIdentifier
    public let transactionIdentifier: Int64
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.changeIdentifier == rhs.changeIdentifier
            && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactionIdentifier)
        hasher.combine(changeIdentifier)
    }
}

/// A delete in a ModelKit store's history, with the deleted model's preserved values.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    public let changeIdentifier: Int64
    public let changedPersistentIdentifier: PersistentIdentifier
    public let transactionIdentifier: Int64
    public let tombstone: HistoryTombstone<Model>

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.changeIdentifier == rhs.changeIdentifier
            && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactionIdentifier)
        hasher.combine(changeIdentifier)
    }
}

/// What remains of a deleted model: the values its `@Attribute(.preserveValueOnDeletion)`
/// properties had, read from the store in the deleting transaction.
///
/// ```swift
/// if case .delete(let deletion as DefaultHistoryDelete<Trip>) = change {
///     let name = deletion.tombstone[\.name] as? String
/// }
/// ```
public struct HistoryTombstone<Model: PersistentModel>: @unchecked Sendable, Sequence {
    /// The preserved values by key path. Key paths are immutable, and the values are stored
    /// attribute values decoded from the store, owned by nobody else.
    private let values: [(keyPath: AnyKeyPath, value: Any)]

    init(values: [(keyPath: AnyKeyPath, value: Any)]) {
        self.values = values
    }

    /// The value the property at `keyPath` had when the model was deleted, or nil if it was not
    /// preserved. An optional property that was nil reads as `Optional<Value>.none`, wrapped.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        guard let value = values.first(where: { $0.keyPath == keyPath })?.value else { return nil }
        // `Any` and `any Sendable` share one layout; Sendable is a marker, with nothing to check.
        let sendable: any Sendable = withUnsafePointer(to: value) {
            $0.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee }
        }
        return sendable
    }

    /// The preserved values, in property order.
    /// The preserved values, in property order.
    public func makeIterator() -> Iterator { Iterator(values: values.map(\.value)) }

    /// Iterates a tombstone's preserved values.
    public struct Iterator: IteratorProtocol {
        public typealias Element = Any
        private let values: [Any]
        private var position = 0

        init(values: [Any]) { self.values = values }

        public mutating func next() -> Any? {
            guard position < values.count else { return nil }
            defer { position += 1 }
            return values[position]
        }
    }
}

extension ModelContext {
    /// The context as a ``DataStore`` sees it: the same identifier for the context's life, and
    /// its ``author``. Each request to a custom store carries it.
    public var editingState: EditingState {
        EditingState(id: editingStateID, author: author)
    }

    /// The custom store of `entity`, with its link's index, telling the store of the context's
    /// editing state on first use; nil for the engine's own stores.
    func customStore(of entity: Schema.Entity) -> CustomStore? {
        customStore(at: container.storeIndex(of: entity))
    }

    /// The custom store of the link at `index`, as ``customStore(of:)`` gives it.
    func customStore(at index: Int) -> CustomStore? {
        guard let custom = links[index].store.custom else { return nil }
        if initializedCustomStores.insert(index).inserted {
            let state = editingState
            custom.withStore { $0.initializeState(for: state) }
        }
        return custom
    }

    /// Tells the custom stores the context used that its editing state is gone.
    func invalidateCustomStoreStates() {
        guard !initializedCustomStores.isEmpty else { return }
        let state = editingState
        for index in initializedCustomStores {
            links[index].store.custom?.withStore { $0.invalidateState(for: state) }
        }
    }
}

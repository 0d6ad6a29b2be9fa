extension ModelContainer {
    /// The identifier of the store made for the configuration named `name`: what
    /// `PersistentIdentifier.storeIdentifier`, history tokens and `HistoryDescriptor`
    /// predicates name the store by. Identifiers are kept in the store and survive reopening;
    /// they are not the configuration's name.
    /// - Returns: nil when no store of the container was made for a configuration of that name
    ///   (a configuration that holds no models has none).
    public func storeIdentifier(forConfigurationNamed name: String) -> String? {
        storeConfigurationNames.firstIndex(of: name).map { stores[$0].identifier }
    }

    /// The name of the configuration whose store has the identifier `identifier`, as a
    /// `PersistentIdentifier` or a history token gives it.
    /// - Returns: nil when no store of the container has that identifier.
    public func configurationName(forStoreIdentifier identifier: String) -> String? {
        guard let index = stores.firstIndex(where: { $0.identifier == identifier }), index < storeConfigurationNames.count else { return nil }
        return storeConfigurationNames[index]
    }
}

import Foundation

extension ModelContext {
    /// The transactions of the store's history that `descriptor` describes: by default all of
    /// them, oldest first.
    ///
    /// Every save and batch delete records one transaction, in the same SQLite transaction as
    /// its data, so history and data always agree. Any container or process on the store reads
    /// the same history, and it survives relaunch. Predicates on the token, author, timestamp,
    /// transaction identifier, bundle and process identifiers run in SQL; others run in Swift.
    ///
    /// ```swift
    /// let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken })
    /// for transaction in try context.fetchHistory(descriptor) {
    ///     for change in transaction.changes { … }
    ///     lastToken = transaction.token
    /// }
    /// ```
    ///
    /// In a container with several stores, the history of each is read and merged by time
    /// (unless `sortBy` says otherwise); a predicate that compares with a token reads only that
    /// token's store, since tokens order one store's transactions. Keep a token per store.
    /// - Throws: ``SwiftDataError/historyTokenExpired`` (carrying
    ///   ``ModelKitError/historyTokenExpired(_:)``) when the predicate resumes from a token older
    ///   than deleted history; ``ModelKitError/historyTokenOfAnotherStore(_:storeIdentifier:)``
    ///   for a token of another store; ``ModelKitError/invalidFetchDescriptor(_:)`` for
    ///   tokens of several stores, or a transaction type other than
    ///   ``DefaultHistoryTransaction``.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        if let custom = try customHistory(descriptor) { return custom }
        let descriptor = try defaultDescriptor(descriptor)
        let links = try historyLinks(for: descriptor.predicate)
        var transactions = try links.flatMap { try fetchHistory(descriptor, from: $0) }
        if links.count > 1 {
            // Tokens of different stores have no common order: merge by time.
            if descriptor.sortBy.isEmpty {
                transactions.sort { ($0.timestamp, $0.storeIdentifier, $0.token) < ($1.timestamp, $1.storeIdentifier, $1.token) }
            } else {
                transactions.sort(using: descriptor.sortBy)
            }
            if let limit = descriptor.limit { transactions = Array(transactions.prefix(limit)) }
        }
        return transactions as! [T]  // T is DefaultHistoryTransaction: checked by defaultDescriptor
    }

    /// The transactions of one store's history that `descriptor` describes.
    func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, from link: StoreLink) throws -> [DefaultHistoryTransaction] {
        let store = link.store
        let (query, rows) = try run(on: link) {
            let reader = try reader(of: link)
            try checkTokens(of: descriptor.predicate, of: store, in: reader)
            let bound = try reader.settledHistoryBound(through: store.access.newestCommittedToken.load(ordering: .relaxed))
            let query = try HistoryQuery(descriptor, storeIdentifier: store.identifier, dialect: store.dialect, settledBelow: bound)
            return (query, try reader.rows(query.sql))
        }
        var transactions = try rows.map { try transaction(from: $0, of: store) }
        if let predicate = descriptor.predicate, !query.filtersInSQL {
            transactions = try transactions.filter { try predicate.evaluate($0) }
        }
        if !query.sortsInSQL { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.limit, !query.limitsInSQL { transactions = Array(transactions.prefix(limit)) }
        return transactions
    }

    /// The links of the stores whose history a predicate reads: with several stores, the store
    /// of the tokens it names, since a token orders only its own store's transactions; every
    /// store that records history when it names none.
    /// - Throws: ``ModelKitError/historyTokenOfAnotherStore(_:storeIdentifier:)`` for a token of
    ///   none of the stores; ``ModelKitError/invalidFetchDescriptor(_:)`` for tokens of several.
    private func historyLinks(for predicate: Predicate<DefaultHistoryTransaction>?) throws -> [StoreLink] {
        let recording = links.filter(\.store.recordsHistory)
        guard links.count > 1, let predicate else { return recording }
        let named = Set(Self.tokens(in: predicate.expression).map(\.storeIdentifier))
        guard let first = named.first else { return recording }
        guard named.count == 1 else {
            throw ModelKitError.invalidFetchDescriptor("the history predicate compares with tokens of several stores; read each store's history on its own")
        }
        guard links.contains(where: { $0.store.identifier == first }) else {
            let token = Self.tokens(in: predicate.expression)[0]
            throw ModelKitError.historyTokenOfAnotherStore(token, storeIdentifier: links.map(\.store.identifier).joined(separator: ", "))
        }
        return recording.filter { $0.store.identifier == first }
    }

    /// Deletes the history transactions `descriptor`'s predicate matches (all of them when it
    /// has none), and never the data. A reader that later resumes from a token older than the
    /// newest deleted transaction gets ``SwiftDataError/historyTokenExpired``.
    ///
    /// ```swift
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < oldest }))
    /// ```
    /// - Throws: ``ModelKitError/saveNotAllowed(_:)`` when the container does not allow saves;
    ///   ``ModelKitError/invalidFetchDescriptor(_:)`` for a predicate with no SQL translation, or
    ///   a transaction type other than ``DefaultHistoryTransaction``; a typed error when SQLite
    ///   refuses.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        if try deleteCustomHistory(descriptor) { return }
        let descriptor = try defaultDescriptor(descriptor)
        let links = try historyLinks(for: descriptor.predicate)
        if let readOnly = links.first(where: { !$0.store.allowsSave }) { throw ModelKitError.saveNotAllowed(readOnly.store.url) }
        for link in links {
            let store = link.store
            let query = try HistoryQuery(descriptor, storeIdentifier: store.identifier, dialect: store.dialect)
            guard query.filtersInSQL else {
                throw ModelKitError.invalidFetchDescriptor(
                    "deleteHistory needs a predicate on token, author, timestamp, bundleIdentifier or processIdentifier")
            }
            try run(on: link) {
                try store.deleteHistory(where: query.condition, trace: statementTrace)
            }
        }
    }

    private func defaultDescriptor<T>(_ descriptor: HistoryDescriptor<T>) throws -> HistoryDescriptor<DefaultHistoryTransaction> {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw ModelKitError.invalidFetchDescriptor("ModelKit stores record DefaultHistoryTransaction, not \(T.self)")
        }
        return descriptor
    }

    /// Throws if a token the predicate compares with belongs to another store, or is older than
    /// deleted history.
    private func checkTokens(of predicate: Predicate<DefaultHistoryTransaction>?, of store: Store, in reader: StoreReader) throws {
        guard let predicate else { return }
        let tokens = Self.tokens(in: predicate.expression)
        guard !tokens.isEmpty else { return }
        let deletedThrough = try reader.historyDeletedThrough()
        for token in tokens {
            guard token.storeIdentifier == store.identifier else {
                throw ModelKitError.historyTokenOfAnotherStore(token, storeIdentifier: store.identifier)
            }
            if token.value < deletedThrough { throw SwiftDataError.historyTokenExpired.carrying(.historyTokenExpired(token)) }
        }
    }

    /// The tokens among the values of a predicate's expression tree.
    private static func tokens(in node: Any) -> [DefaultHistoryToken] {
        Mirror(reflecting: node).children.flatMap { child -> [DefaultHistoryToken] in
            if let token = child.value as? DefaultHistoryToken { return [token] }
            if let token = child.value as? DefaultHistoryToken?, let token { return [token] }
            return child.value is any PredicateExpression ? tokens(in: child.value) : []
        }
    }

    /// A transaction read from the history table (a row of ``HistorySQL/select``).
    private func transaction(from row: [SQLValue], of store: Store) throws -> DefaultHistoryTransaction {
        guard case .integer(let token) = row[0], let timestamp = Date(sqlValue: row[1]), case .text(let bundle) = row[3],
            case .text(let process) = row[4], case .blob(let blob) = row[5]
        else { throw damagedHistory(row.first) }
        let author: String? = if case .text(let author) = row[2] { author } else { nil }
        let changes: [HistoryRecord.Change]
        do {
            changes = try HistoryRecord.decode(blob)
        } catch {
            throw damagedHistory(row.first)
        }
        let storeIdentifier = store.identifier
        return DefaultHistoryTransaction(
            transactionIdentifier: token, token: DefaultHistoryToken(storeIdentifier: storeIdentifier, value: token), author: author,
            timestamp: timestamp, storeIdentifier: storeIdentifier, bundleIdentifier: bundle, processIdentifier: process,
            changes: changes.enumerated().map { historyChange($1, at: Int64($0), in: token, of: store.identity) })
    }

    private func damagedHistory(_ token: SQLValue?) -> ModelKitError {
        .storedValueMismatch(
            entity: HistoryTable.name, property: "changes", expected: "a history transaction", found: "damaged data (token \(token ?? .null))")
    }

    /// One recorded change as SwiftData shows it: a change of the entity's model type, or of
    /// ``MissingModel`` for an entity the schema no longer has.
    private func historyChange(_ change: HistoryRecord.Change, at index: Int64, in token: Int64, of store: StoreIdentity) -> HistoryChange {
        let entity = container.schema.entity(named: change.entity)
        let identifier =
            if let entity {
                PersistentIdentifier(scope: store.scope(for: entity), key: .row(change.rowID))
            } else {
                PersistentIdentifier(entityName: change.entity, storeIdentifier: store.value, key: .row(change.rowID))
            }
        func make<Model: PersistentModel>(_: Model.Type) -> HistoryChange {
            switch change.kind {
            case .insert:
                return .insert(DefaultHistoryInsert<Model>(changeIdentifier: index, changedPersistentIdentifier: identifier, transactionIdentifier: token))
            case .update:
                let keyPaths = change.attributes.compactMap { name in
                    (entity?.metadata.first { $0.name == name }?.keyPath as? PartialKeyPath<Model>).map {
                        // Key paths are immutable values: sharing them across isolation domains is safe.
                        unsafeBitCast($0, to: (any PartialKeyPath<Model> & Sendable).self)
                    }
                }
                return .update(
                    DefaultHistoryUpdate<Model>(
                        changeIdentifier: index, changedPersistentIdentifier: identifier, transactionIdentifier: token, updatedAttributes: keyPaths))
            case .delete:
                let values = (entity?.metadata ?? []).compactMap { property -> (keyPath: AnyKeyPath, value: Any)? in
                    guard let stored = change.preserved[property.name], let value = try? property.codec?.decode(stored) else { return nil }
                    return (property.keyPath, value)
                }
                return .delete(
                    DefaultHistoryDelete<Model>(
                        changeIdentifier: index, changedPersistentIdentifier: identifier, transactionIdentifier: token,
                        tombstone: HistoryTombstone(values: values)))
            }
        }
        let type: any PersistentModel.Type = entity?.type ?? MissingModel.self
        return make(type)
    }
}

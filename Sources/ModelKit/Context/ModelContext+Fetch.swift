import Foundation

extension ModelContext {
    /// The models the descriptor describes.
    ///
    /// Sorting, limit and offset run in SQLite. A predicate is evaluated in Swift over the stored
    /// rows, so every predicate gets the right answer. With `includePendingChanges` (the default),
    /// unsaved inserts, changes and deletes of the model's type count.
    /// - Throws: ``ModelKitError/modelNotInSchema(_:)`` for a type the container does not store,
    ///   or a typed error if the store cannot be read.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let entity = try entity(for: T.self)
        let orderBy = SortSQL.orderBy(descriptor.sortBy, entity: entity)
        let pending = descriptor.includePendingChanges && hasPendingChanges(of: T.self)
        // SQLite can page only when it sees the whole filter and order.
        let pagesInSQL = descriptor.predicate == nil && orderBy != nil && !pending
        var sql = TableSQL(entity: entity).select + (orderBy ?? "")
        var bindings: [SQLValue] = []
        if pagesInSQL, descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            sql += " LIMIT ? OFFSET ?"
            bindings = [.integer(Int64(descriptor.fetchLimit ?? -1)), .integer(Int64(descriptor.fetchOffset ?? 0))]
        }
        var models = try rows(of: T.self, entity: entity, sql: SQL(text: sql, bindings: bindings))
        if pagesInSQL { return models }

        if pending {
            models.removeAll { $0._$modelKit.isDeleted }
            models += inserted.models.compactMap { $0 as? T }
        }
        if let predicate = descriptor.predicate {
            models = try models.filter { try predicate.evaluate($0) }
        }
        if pending || orderBy == nil {
            models = stableSorted(models, using: descriptor.sortBy)
        }
        let start = min(descriptor.fetchOffset ?? 0, models.count)
        let end = descriptor.fetchLimit.map { min(start + $0, models.count) } ?? models.count
        return Array(models[start..<end])
    }

    /// The number of models the descriptor describes. Without a predicate or pending changes, this
    /// is one `SELECT COUNT(*)`.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let entity = try entity(for: T.self)
        guard descriptor.predicate == nil, !(descriptor.includePendingChanges && hasPendingChanges(of: T.self)) else {
            return try fetch(descriptor).count
        }
        let rows = try connection().statement("SELECT COUNT(*) FROM \(entity.name.quotedIdentifier)").rows()
        guard case .integer(let count) = rows.first?.first else { return 0 }
        let available = max(0, Int(count) - (descriptor.fetchOffset ?? 0))
        return descriptor.fetchLimit.map { min($0, available) } ?? available
    }

    /// Runs `sql` and returns a model per row, reusing registered instances.
    func rows<T: PersistentModel>(of type: T.Type, entity: Schema.Entity, sql: SQL) throws -> [T] {
        let connection = try connection()
        let statement = try connection.statement(sql.text)
        do {
            try statement.bind(sql.bindings)
            defer { statement.reset() }
            var models: [T] = []
            while try statement.step() {
                models.append(try materialize(T.self, row: ModelRow(statement: statement, entity: entity)))
            }
            return models
        } catch let error as SQLiteError where error.isCorruption {
            throw ModelKitError.notADatabase(container.store.url, error)
        } catch let error as SQLiteError {
            throw ModelKitError.sqlite(error)
        }
    }

    private func hasPendingChanges<T: PersistentModel>(of type: T.Type) -> Bool {
        [inserted, changed, deleted].contains { pending in pending.models.contains { $0 is T } }
    }

    /// Sorts by the descriptors, keeping store order (primary key, then insertion) among equals.
    private func stableSorted<T: PersistentModel>(_ models: [T], using descriptors: [SortDescriptor<T>]) -> [T] {
        models.enumerated().sorted { lhs, rhs in
            for descriptor in descriptors {
                switch descriptor.compare(lhs.element, rhs.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}

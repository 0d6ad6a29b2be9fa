extension ModelContext {
    /// Loads the attributes at `columns` of `model`, which a partial fetch left out, from its
    /// row, without tracking them as changes. A row deleted meanwhile leaves the model deleted.
    func loadUnfetched(_ columns: [Int], of model: some PersistentModel) {
        let storage = model._$modelKit
        guard let rowID = storage.rowID, let entity = storage.entity else { return }
        do {
            let values: [(Column, Any)]? = try run(on: entity) {
                try reader(for: entity).first(SQL(text: entity.sql.selectByPrimaryKey, bindings: [.integer(rowID)])) { statement in
                    let row = ModelRow(statement: statement, entity: entity, context: self)
                    return try columns.map { (entity.columns[$0], try entity.decode(row.stored(at: $0), at: $0)) }
                }
            }
            guard let values else {
                ModelKitDebugLog.error(
                    "\(type(of: model)) \(rowID) was deleted before its properties left out by propertiesToFetch loaded")
                return forgetDeletedElsewhere(model)
            }
            storage.loading {
                for (column, value) in values { column.assign(value, to: model) }
            }
        } catch {
            ModelKitDebugLog.error("could not load the properties of \(type(of: model)) left out by propertiesToFetch: \(error)")
        }
    }
}

extension PersistentModel {
    /// The stored form of the property at `column`, the row's once the properties a partial
    /// fetch left out are loaded: for the engine's comparisons of stored values.
    func loadedValue(at column: Int) throws -> SQLValue {
        _$modelKit.loadUnfetched(of: self)
        return try _modelKitValue(at: column)
    }
}

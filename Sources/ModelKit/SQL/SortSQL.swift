import Foundation

/// Translates sort descriptors to an `ORDER BY` clause, through the schema's key-path table.
///
/// SQLite sorts strings by code point, as the `.lexical` comparator (and Linux's default for
/// strings) does. Returns nil when a descriptor's key path is not a persisted property, when its
/// stored form sorts differently from its value (unsigned integers, decimals), or when it compares
/// strings some other way (`.localizedStandard` on Apple platforms), so that the caller sorts in
/// Swift instead.
struct SortSQL {
    /// The `ORDER BY` clause for `order` (see ``storedOrder(_:entity:)``), the primary key breaking
    /// ties; nil when `order` is nil. No sort descriptors sort by primary key.
    static func orderBy(_ order: [(column: Int, ascending: Bool)]?, entity: Schema.Entity) -> String? {
        guard let order else { return nil }
        guard !order.isEmpty else { return byPrimaryKey }
        let terms = order.map { "\(entity.sql.columns[$0.column]) \($0.ascending ? "ASC" : "DESC")" }
        return " ORDER BY " + (terms + ["\(TableSQL.quotedPrimaryKey) ASC"]).joined(separator: ", ")
    }

    /// The columns the descriptors sort by, each with its direction; nil when one of them does not
    /// translate, as described above.
    static func storedOrder<T: PersistentModel>(_ descriptors: [SortDescriptor<T>], entity: Schema.Entity) -> [(column: Int, ascending: Bool)]? {
        // Without a sort, no iterator of the generic array (whose metadata a request would look up).
        if descriptors.count == 0 { return [] }
        var order: [(column: Int, ascending: Bool)] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let column = entity.column(for: keyPath),
                !entity.storageTraits[column].hasUnorderedStorage, entity.metadata[column].isStoredInTable, entity.isQueryable(column)
            else { return nil }
            if let comparator = descriptor.stringComparator, comparator != .lexical { return nil }
            order.append((column, descriptor.order == .forward))
        }
        return order
    }

    /// How two models compare in the order SQLite sorts `order`'s columns in: their stored values,
    /// as SQLite compares them. Nil when a value cannot be encoded.
    static func compare(_ lhs: some PersistentModel, _ rhs: some PersistentModel, by order: [(column: Int, ascending: Bool)]) -> ComparisonResult? {
        for (column, ascending) in order {
            guard let left = try? lhs.loadedValue(at: column), let right = try? rhs.loadedValue(at: column) else { return nil }
            let result = left.sqliteOrder(comparedTo: right)
            if result != .orderedSame { return ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending) }
        }
        return .orderedSame
    }

    /// The order of a fetch without sort descriptors.
    private static let byPrimaryKey = " ORDER BY \(TableSQL.quotedPrimaryKey) ASC"
}

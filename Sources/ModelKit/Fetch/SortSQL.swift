import Foundation

/// Translates sort descriptors to an `ORDER BY` clause, through the schema's key-path table.
///
/// SQLite sorts strings by code point, as the `.lexical` comparator (and Linux's default for
/// strings) does. Returns nil when a descriptor's key path is not a persisted property, when its
/// stored form sorts differently from its value (unsigned integers, decimals), or when it compares
/// strings some other way (`.localizedStandard` on Apple platforms), so that the caller sorts in
/// Swift instead.
struct SortSQL {
    static func orderBy<T: PersistentModel>(_ descriptors: [SortDescriptor<T>], entity: Schema.Entity) -> String? {
        guard !descriptors.isEmpty else { return byPrimaryKey }
        var terms: [String] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let column = entity.column(for: keyPath),
                !entity.storageTraits[column].hasUnorderedStorage, entity.properties[column].isStoredInTable, entity.isQueryable(column)
            else { return nil }
            if let comparator = descriptor.stringComparator, comparator != .lexical { return nil }
            let direction = descriptor.order == .forward ? "ASC" : "DESC"
            terms.append("\(entity.sql.columns[column]) \(direction)")
        }
        terms.append("\(TableSQL.quotedPrimaryKey) ASC")
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// The order of a fetch without sort descriptors.
    private static let byPrimaryKey = " ORDER BY \(TableSQL.quotedPrimaryKey) ASC"
}

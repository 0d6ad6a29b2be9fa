import Foundation

/// How a history fetch runs: the statement, and what is left to Swift (a predicate or sort with
/// no SQL translation, and then the limit).
struct HistoryQuery {
    let sql: SQL
    /// The translated predicate; nil when there is none or it runs in Swift.
    let condition: PredicateTerm?
    let filtersInSQL: Bool
    let sortsInSQL: Bool
    var limitsInSQL: Bool { filtersInSQL && sortsInSQL }

    /// - Parameter bound: where tokens commit out of order, the first token not yet settled
    ///   (``SQLDialect/HistoryRecording/settledBound``): the read stops below it.
    init(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, storeIdentifier: String, dialect: SQLDialect, settledBelow bound: Int64? = nil) throws {
        let columns = HistorySQL.columns(storeIdentifier: storeIdentifier)
        var condition: PredicateTerm?
        var filtersInSQL = true
        if let predicate = descriptor.predicate {
            do {
                condition = try PredicateSQL.condition(for: predicate, columns: columns, dialect: dialect)
            } catch is Untranslatable {
                filtersInSQL = false
            }
        }
        let orderBy = Self.orderBy(descriptor.sortBy, columns: columns)
        var sql = SQL(text: HistorySQL.select)
        let conditions = [condition?.text, bound.map { _ in #""token" < ?"# }].compactMap { $0 }
        if !conditions.isEmpty {
            sql.text += " WHERE " + (conditions.count == 1 ? conditions[0] : conditions.map { "(\($0))" }.joined(separator: " AND "))
            sql.bindings += (condition?.bindings ?? []) + (bound.map { [.integer($0)] } ?? [])
        }
        sql.text += orderBy ?? #" ORDER BY "token""#
        if let limit = descriptor.limit, filtersInSQL, orderBy != nil {
            sql.text += " LIMIT ?"
            sql.bindings.append(.integer(Int64(limit)))
        }
        self.sql = sql
        self.condition = condition
        self.filtersInSQL = filtersInSQL
        sortsInSQL = orderBy != nil
    }

    /// The `ORDER BY` clause for sorts on history columns, then by token; nil when a sort is on
    /// something else, or compares strings other than by code point, and runs in Swift.
    private static func orderBy(_ descriptors: [SortDescriptor<DefaultHistoryTransaction>], columns: [AnyKeyPath: PredicateTerm]) -> String? {
        var terms: [String] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let column = columns[keyPath], column.bindings.isEmpty else { return nil }
            if let comparator = descriptor.stringComparator, comparator != .lexical { return nil }
            terms.append("\(column.text) \(descriptor.order == .forward ? "ASC" : "DESC")")
        }
        return " ORDER BY " + (terms + [#""token" ASC"#]).joined(separator: ", ")
    }
}

/// How a fetch runs: what SQLite does (filter, order, page) and what is left to Swift.
///
/// Not generic: a plan keeps what it needs of the descriptor, so code that passes plans around
/// looks up no generic type metadata for them.
struct FetchPlan {
    let entity: Schema.Entity
    /// The translated predicate; nil when there is no predicate or it runs in Swift.
    let condition: PredicateTerm?
    /// Why the predicate runs in Swift, if it does.
    let untranslated: Untranslatable?
    /// The `ORDER BY` clause; nil when sorting runs in Swift.
    let orderBy: String?
    /// The columns the sort descriptors sort by, with their directions (see
    /// ``SortSQL/storedOrder(_:entity:)``); nil when sorting runs in Swift.
    let storedOrder: [(column: Int, ascending: Bool)]?
    let dialect: SQLDialect
    /// The descriptor's `fetchLimit` and `fetchOffset`.
    let fetchLimit: Int?
    let fetchOffset: Int?
    /// What the rows read when the descriptor names `propertiesToFetch`; nil when they read
    /// every column.
    let partial: PartialFetch?

    init<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, entity: Schema.Entity, dialect: SQLDialect = .sqlite, partial: PartialFetch? = nil
    ) {
        self.dialect = dialect
        self.entity = entity
        fetchLimit = descriptor.fetchLimit
        fetchOffset = descriptor.fetchOffset
        var condition: PredicateTerm?
        var untranslated: Untranslatable?
        if let predicate = descriptor.predicate {
            do {
                condition = try PredicateSQL.condition(for: predicate, entity: entity, dialect: dialect)
            } catch let error as Untranslatable {
                untranslated = error
            } catch {
                untranslated = Untranslatable("\(error)")
            }
        }
        self.condition = condition
        self.untranslated = untranslated
        storedOrder = SortSQL.storedOrder(descriptor.sortBy, entity: entity)
        orderBy = SortSQL.orderBy(storedOrder, entity: entity)
        self.partial = partial
    }

    /// Whether the fetch reads every stored row of its entity: no predicate, limit or offset.
    var readsWholeTable: Bool {
        condition == nil && untranslated == nil && fetchLimit == nil && (fetchOffset ?? 0) == 0
    }

    /// Whether SQLite sees the whole filter.
    var filtersInSQL: Bool { untranslated == nil }

    /// Whether SQLite can filter, order and page on its own.
    var isCompleteInSQL: Bool { filtersInSQL && orderBy != nil }

    /// The results' order as Swift can reproduce it, comparing models' stored values (see
    /// ``SortSQL/compare(_:_:by:)``) with the primary key breaking ties: empty for key order; the
    /// sort's columns where the dialect orders as stored values compare. Nil when the sort does
    /// not translate, or the dialect orders otherwise.
    var orderInMemory: [(column: Int, ascending: Bool)]? {
        guard let storedOrder, storedOrder.isEmpty || dialect.values.ordersAsStoredValuesCompare else { return nil }
        return storedOrder
    }

    /// The statement selecting the stored rows: filtered when the predicate translates, ordered
    /// by the sort when it translates (by primary key otherwise), and paged when `paged` and both
    /// translate.
    func select(paged: Bool) -> SQL {
        select(paged: paged, from: partial?.selectClause ?? entity.sql.select)
    }

    /// `select(paged:)` with another select list: `SELECT … FROM <table>`.
    func select(paged: Bool, from selectClause: String) -> SQL {
        var sql = filtered(selectClause)
        sql.text += orderBy ?? " ORDER BY \(TableSQL.quotedPrimaryKey) ASC"
        if paged, isCompleteInSQL, fetchLimit != nil || fetchOffset != nil {
            sql.text += " LIMIT ? OFFSET ?"
            sql.bindings += pagingBindings
        }
        return sql
    }

    /// The primary key and the columns at `columns` of the stored rows, unpaged, in the fetch's
    /// order: what placing unsaved models among them needs.
    func selectKeys(with columns: [Int]) -> SQL {
        let selectList = ([TableSQL.quotedPrimaryKey] + columns.map { entity.sql.columns[$0] }).joined(separator: ", ")
        return select(paged: false, from: "SELECT \(selectList) FROM \(entity.sql.source)")
    }

    /// The first `window` stored rows in the fetch's order: enough to page a fetch that also sees
    /// unsaved changes, without reading the whole table.
    func select(window: Int) -> SQL {
        var sql = select(paged: false)
        sql.text += " LIMIT ?"
        sql.bindings.append(.integer(Int64(window)))
        return sql
    }

    /// `SELECT COUNT(*)` of what the descriptor describes, when SQLite sees the whole filter.
    var count: SQL {
        guard fetchLimit != nil || fetchOffset != nil else { return count(leavingOut: []) }
        let page = filtered("SELECT 1 FROM \(entity.sql.source)")
        return SQL(
            text: "SELECT COUNT(*) FROM (\(page.text) LIMIT ? OFFSET ?) AS \"page\"", bindings: page.bindings + pagingBindings)
    }

    /// `SELECT COUNT(*)` of the stored rows the predicate matches, unpaged, leaving out the rows
    /// under `keys`.
    func count(leavingOut keys: [Int64]) -> SQL {
        filtered("SELECT COUNT(*) FROM \(entity.sql.source)", leavingOut: keys)
    }

    /// The floating-point sum of the property at `column` over the rows the predicate matches,
    /// and how many of them hold NaN, leaving out the rows under `keys`.
    func sum(of column: Int, leavingOut keys: [Int64]) -> SQL {
        let name = entity.sql.columns[column]
        let nan = dialect.isNaN(PredicateTerm(name)).text
        let select = "SELECT \(dialect.total(name)), count(CASE WHEN \(nan) THEN 1 END) FROM \(entity.sql.source)"
        return filtered(select, leavingOut: keys)
    }

    /// The primary keys of the rows under `keys` that the predicate matches, unordered: which
    /// rows a commit changed are results now.
    func selectKeys(among keys: [Int64]) -> SQL {
        restricting(filtered("SELECT \(TableSQL.quotedPrimaryKey) FROM \(entity.sql.source)"), to: keys, leavingOut: false)
    }

    /// `select` with the predicate's condition, if any, and, unless `keys` is empty, one leaving
    /// out the rows under them.
    private func filtered(_ select: String, leavingOut keys: [Int64] = []) -> SQL {
        var sql = SQL(text: select)
        if let condition {
            sql.text += " WHERE " + condition.text
            sql.bindings += condition.bindings
        }
        return keys.isEmpty ? sql : restricting(sql, to: keys, leavingOut: true)
    }

    /// `sql`, filtered by ``filtered(_:leavingOut:)``, kept to the rows under `keys` or leaving
    /// them out: the keys bound as one JSON array, however many there are.
    private func restricting(_ sql: SQL, to keys: [Int64], leavingOut: Bool) -> SQL {
        var sql = sql
        sql.text += (condition == nil ? " WHERE " : " AND ") + (leavingOut ? "NOT " : "")
            + dialect.isAmongBoundKeys(TableSQL.quotedPrimaryKey).text
        sql.bindings.append(.keyArray(keys))
        return sql
    }

    /// The values of `LIMIT ? OFFSET ?`: no limit is -1 to SQLite, NULL to PostgreSQL.
    private var pagingBindings: [SQLValue] {
        [fetchLimit.map { .integer(Int64($0)) } ?? dialect.values.noLimit, .integer(Int64(fetchOffset ?? 0))]
    }
}

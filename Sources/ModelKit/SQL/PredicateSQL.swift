import Foundation
import Synchronization

/// Translates a Foundation `Predicate` into a SQL `WHERE` condition, with every value bound as a
/// parameter.
///
/// Each `PredicateExpressions` node the translator knows conforms to ``SQLTranslatable``, under
/// the condition that its children do, so one cast at the root tells whether the whole tree has a
/// translation and the walk below it is direct calls. A tree with a node that does not conform,
/// or a construct SQLite would answer differently from Swift, throws ``Untranslatable``, and the
/// caller evaluates the predicate in Swift instead.
struct PredicateSQL {
    /// The SQL written.
    let dialect: SQLDialect
    /// What each predicate variable stands for: the model row, a related row, or an optional's
    /// unwrapped value.
    private var variables: [PredicateExpressions.VariableID: PredicateTerm] = [:]
    /// The variables the translation has read, while ``exists(in:where:_:)`` watches for a test
    /// that refers to rows outside its subquery.
    private var variablesRead: Set<PredicateExpressions.VariableID> = []
    private var aliases = 0
    /// The predicate's constants, in the order the translation meets them, and how many it has
    /// met: each is bound as a placeholder naming it (see ``BindingSource``).
    private let constants: [LeafConstant]
    private var constantsTaken = 0

    private init(dialect: SQLDialect, constants: [LeafConstant]) {
        self.dialect = dialect
        self.constants = constants
    }

    /// The `WHERE` condition for `predicate`. Columns of the model's own row are qualified by
    /// its table name, so that subqueries over related rows can refer to them. Translations are
    /// kept per entity by predicate shape (see ``PredicateLeaves``): a predicate of a shape met
    /// before costs a walk of its tree, not a translation.
    /// - Throws: ``Untranslatable`` naming the first node that has no SQL translation.
    static func condition<T: PersistentModel>(
        for predicate: Predicate<T>, entity: Schema.Entity, dialect: SQLDialect = .sqlite
    ) throws -> PredicateTerm {
        try condition(for: predicate, input: { .row(of: entity, qualifier: entity.sql.alias) }, dialect: dialect, cache: entity.translations)
    }

    /// The `WHERE` condition for `predicate` over a table that is not a model's (the history's),
    /// whose columns are given by key path of the predicate's input.
    static func condition<T>(
        for predicate: Predicate<T>, columns: [AnyKeyPath: PredicateTerm], dialect: SQLDialect = .sqlite
    ) throws -> PredicateTerm {
        var input = PredicateTerm("")
        input.reference = .record(columns)
        return try condition(for: predicate, input: { input }, dialect: dialect, cache: nil)
    }

    private static func condition<T>(
        for predicate: Predicate<T>, input: () -> PredicateTerm, dialect: SQLDialect, cache: TranslationCache?
    ) throws -> PredicateTerm {
        guard let expression = TranslatableTypes.translatable(predicate.expression) else {
            throw Untranslatable(firstUntranslatableNode(in: predicate.expression))
        }
        var leaves = PredicateLeaves()
        leaves.variable(predicate.variable.key)
        expression.collect(into: &leaves)
        let key = TranslationCache.Key(
            expression: ObjectIdentifier(type(of: predicate.expression)), dialect: dialect, keyPaths: leaves.keyPaths, shape: leaves.shape)
        if let cached = cache?[key] { return try cached.fragment(with: leaves.constants) }
        let recorded = try RecordedTranslation {
            var translator = PredicateSQL(dialect: dialect, constants: leaves.constants)
            translator.variables[predicate.variable.key] = input()
            return translator.condition(try expression.sql(in: &translator))
        }
        cache?.store(recorded, for: key)
        return try recorded.fragment(with: leaves.constants)
    }

    /// The next constant the translation meets, with its number.
    mutating func takeConstant() -> (index: Int, constant: LeafConstant) {
        defer { constantsTaken += 1 }
        return (constantsTaken, constants[constantsTaken])
    }

    /// `fragment` where a condition is expected (`WHERE`, `AND`, `NOT`, `CASE WHEN`). A stored
    /// `Bool` is an integer; PostgreSQL wants a boolean there.
    func condition(_ fragment: PredicateTerm) -> PredicateTerm {
        guard dialect.values.conditionsAreBooleans, !fragment.isCondition else { return fragment }
        var result = PredicateTerm.compose("($0 <> 0)", fragment)
        result.isCondition = true
        return result
    }

    /// `fragment` where a value is expected (an operand, a `CASE` branch): a condition becomes
    /// the integer a stored `Bool` is, nil staying nil.
    func value(_ fragment: PredicateTerm) -> PredicateTerm {
        guard dialect.values.conditionsAreBooleans, fragment.isCondition else { return fragment }
        return PredicateTerm.compose("(CASE WHEN $0 THEN 1 WHEN NOT $0 THEN 0 END)", fragment, type: Bool.self)
    }

    /// The innermost node of a tree that has no translation: the one to name in the log.
    private static func firstUntranslatableNode(in node: Any) -> Any {
        for child in Mirror(reflecting: node).children {
            if child.value is any PredicateExpression, !(child.value is any SQLTranslatable) {
                return firstUntranslatableNode(in: child.value)
            }
        }
        return node
    }

    /// What a variable stands for.
    mutating func variable(_ id: PredicateExpressions.VariableID) throws -> PredicateTerm {
        guard let fragment = variables[id] else { throw Untranslatable("an unknown variable") }
        variablesRead.insert(id)
        return fragment
    }

    /// A fresh table alias for a subquery.
    mutating func newAlias() -> String {
        aliases += 1
        return "s\(aliases)".quotedIdentifier
    }

    /// The property at `keyPath` of the model `base` stands for: a column of its row, a lookup
    /// of a related row's column, or a to-many to filter or count.
    mutating func member(_ keyPath: AnyKeyPath, of base: PredicateTerm) throws -> PredicateTerm {
        switch base.reference {
        case .row(let entity, let qualifier)?:
            // An ephemeral property has no column, an external one may hold a file name: predicates on them run in Swift.
            guard let index = entity.column(for: keyPath), entity.isQueryable(index) else { throw Untranslatable(keyPath) }
            let text = qualifier == entity.sql.alias ? entity.sql.qualifiedColumns[index] : "\(qualifier).\(entity.sql.columns[index])"
            var column = PredicateTerm(text)
            column.traits = entity.storageTraits[index]
            if let relationship = entity.relationshipsByColumn[index] {
                column.reference = relationship.isToMany
                    ? .many(relationship, owner: PredicateTerm("\(qualifier).\(TableSQL.quotedPrimaryKey)"))
                    : .key(of: relationship.target)
            }
            return column
        case .key(let entity)?:
            // A column of a related row: look it up by the row's key.
            let alias = newAlias()
            let inner = try member(keyPath, of: .row(of: entity, qualifier: alias))
            guard case .many(let relationship, _)? = inner.reference else {
                var lookup = PredicateTerm.compose(
                    "(SELECT $0 FROM $2 AS $3 WHERE $4 = $1)", inner, base, PredicateTerm(entity.sql.table), PredicateTerm(alias),
                    PredicateTerm("\(alias).\(TableSQL.quotedPrimaryKey)"))
                lookup.traits = inner.traits
                lookup.reference = inner.reference
                return lookup
            }
            // A to-many of the related row (`$0.project?.members`): its owner is the row whose key
            // the to-one holds, so `contains(where:)` and `count` tie the targets to that key,
            // with no lookup of the row itself. As a value it is no column, as a to-many of the
            // model's own is not.
            var many = inner
            many.reference = .many(relationship, owner: base)
            return many
        case .record(let columns)?:
            guard let column = columns[keyPath] else { throw Untranslatable(keyPath) }
            return column
        default:
            throw Untranslatable(keyPath)
        }
    }

    /// Whether the model `base` stands for is of class `type` (or a subclass of it), by its
    /// row's `_type`; nil stays nil. A class outside the model's hierarchy does not translate.
    mutating func isKind(_ base: PredicateTerm, of type: Any.Type) throws -> PredicateTerm {
        let (entity, desired) = try entities(of: base, castTo: type)
        guard desired.superentity != nil, !Schema.isKind(entity.type, of: desired.type) else {
            return .condition("($0 IS NOT NULL)", base)
        }
        let names = PredicateTerm("(" + desired.typeNames.map(\.sqlLiteral).joined(separator: ", ") + ")")
        return .condition("($0 IN $1)", try typeColumn(of: base, in: entity), names)
    }

    /// The model `base` stands for as class `type`, or nil when it is of another class: the
    /// same row, whose columns are then the subclass's.
    mutating func cast(_ base: PredicateTerm, to type: Any.Type) throws -> PredicateTerm {
        let (_, desired) = try entities(of: base, castTo: type)
        var cast = PredicateTerm.compose("(CASE WHEN $0 THEN $1 END)", try isKind(base, of: type), base)
        cast.reference = switch base.reference {
        case .row(_, let qualifier)?: .row(desired, qualifier: qualifier)
        default: .key(of: desired)
        }
        return cast
    }

    /// The entity of the model `base` stands for, and that of its class `type`, which must be
    /// of the same hierarchy.
    private func entities(of base: PredicateTerm, castTo type: Any.Type) throws -> (Schema.Entity, Schema.Entity) {
        let entity: Schema.Entity
        switch base.reference {
        case .row(let row, _)?: entity = row
        case .key(let target)?: entity = target
        default: throw Untranslatable("a type check of something other than a model")
        }
        guard let desired = (entity.hierarchy?.entities ?? [entity]).first(where: { $0.type == type }) else {
            throw Untranslatable("a type check against \(type), which is not a model class of \(entity.name)'s hierarchy")
        }
        return (entity, desired)
    }

    /// The `_type` of the row `base` stands for: a column of it, or a lookup by its key.
    private mutating func typeColumn(of base: PredicateTerm, in entity: Schema.Entity) throws -> PredicateTerm {
        let type = Schema.Entity.Hierarchy.quotedTypeColumn
        if case .row(_, let qualifier)? = base.reference { return PredicateTerm("\(qualifier).\(type)") }
        let alias = newAlias()
        return PredicateTerm.compose(
            "(SELECT $2.$3 FROM $1 AS $2 WHERE $2.$4 = $0)", base, PredicateTerm(entity.sql.table), PredicateTerm(alias),
            PredicateTerm(type), PredicateTerm(TableSQL.quotedPrimaryKey))
    }

    /// Whether some target of a to-many passes a test, with `variable` standing for each target
    /// row: true or false, never NULL.
    ///
    /// Over a to-many stored as the targets' foreign key, a test that refers to no row outside
    /// its own (`$0.userID == user`) is `owner IN (SELECT fk … WHERE test)`: the subquery does
    /// not depend on the outer row, so SQLite and PostgreSQL run it once and probe its keys, and
    /// SQLite can instead look the outer rows up by an index on the owner column (a scope's
    /// `$0.project?.members.contains { $0.userID == user } == true` goes from the user's
    /// memberships to their projects' rows rather than testing every row). Other tests, and
    /// to-manys stored in a join table, are `EXISTS`, run per outer row.
    mutating func exists(
        in collection: PredicateTerm, where variable: PredicateExpressions.VariableID,
        _ test: (inout PredicateSQL) throws -> PredicateTerm
    ) throws -> PredicateTerm {
        guard case .many(let relationship, let owner)? = collection.reference else {
            throw Untranslatable("contains(where:) on something other than a to-many")
        }
        let alias = newAlias()
        let enclosingReads = variablesRead
        variablesRead = []
        let condition = try binding(variable, to: .row(of: relationship.target, qualifier: alias), test)
        // Variables still bound are the enclosing ones: the test read a row outside its own.
        let isCorrelated = variablesRead.contains { variables[$0] != nil }
        variablesRead.formUnion(enclosingReads)
        if !isCorrelated, case .inverseForeignKey = relationship.storage {
            // NOT IN and IN over a set holding NULL are NULL, not false: neither side is NULL.
            var probe = PredicateTerm.compose(
                "($0 IS NOT NULL AND $0 IN (SELECT $1 FROM $2 AS $3 WHERE $1 IS NOT NULL AND $4))",
                owner, PredicateTerm("\(alias).\(relationship.target.sql.columns[relationship.inverse!.column])"),
                PredicateTerm(relationship.target.sql.table), PredicateTerm(alias), self.condition(condition))
            probe.isCondition = true
            probe.whenTrue = probe.sql
            return probe
        }
        var exists = PredicateTerm.compose(
            "EXISTS (SELECT 1 FROM $2 AS $3 WHERE $0 AND $1)",
            link(relationship, alias: alias, owner: owner), self.condition(condition), PredicateTerm(relationship.target.sql.table),
            PredicateTerm(alias))
        exists.isCondition = true
        exists.whenTrue = exists.sql
        return exists
    }

    /// The number of targets of a to-many.
    mutating func count(of collection: PredicateTerm) throws -> PredicateTerm {
        guard case .many(let relationship, let owner)? = collection.reference else { throw Untranslatable("count") }
        let alias = newAlias()
        return PredicateTerm.compose(
            "(SELECT COUNT(*) FROM $1 AS $2 WHERE $0)",
            link(relationship, alias: alias, owner: owner), PredicateTerm(relationship.target.sql.table), PredicateTerm(alias), type: Int.self)
    }

    /// The condition tying a target row (`alias`) to its owner.
    private func link(_ relationship: RelationshipInfo, alias: String, owner: PredicateTerm) -> PredicateTerm {
        let target = relationship.target!
        switch relationship.storage {
        case .joinTable(let name, let ownerColumn, let targetColumn):
            return PredicateTerm.compose(
                "$1 IN (SELECT $2 FROM $3 WHERE $4 = $0)", owner, PredicateTerm("\(alias).\(TableSQL.quotedPrimaryKey)"),
                PredicateTerm(targetColumn.quotedIdentifier), PredicateTerm(name.quotedIdentifier), PredicateTerm(ownerColumn.quotedIdentifier))
        default:
            return PredicateTerm.compose("$1 = $0", owner, PredicateTerm("\(alias).\(target.sql.columns[relationship.inverse!.column])"))
        }
    }

    /// Translates `body` with `id` standing for `value`.
    mutating func binding<R>(_ id: PredicateExpressions.VariableID, to value: PredicateTerm, _ body: (inout Self) throws -> R) rethrows -> R {
        variables[id] = value
        defer { variables[id] = nil }
        return try body(&self)
    }
}

/// A predicate node, or a value, that has no SQL translation.
struct Untranslatable: Error, CustomStringConvertible, Sendable {
    let node: String

    init(_ node: Any) {
        self.node = node as? String ?? String(describing: type(of: node)).replacingOccurrences(of: "PredicateExpressions.", with: "")
    }

    var description: String { "no SQL translation for \(node)" }
}

/// A translated predicate expression or value: its ``SQL``, and what the translator knows of it
/// (the storage of its type, the model it refers to, whether it is a condition).
package struct PredicateTerm: Equatable {
    var sql: SQL
    var text: String {
        get { sql.text }
        set { sql.text = newValue }
    }
    var bindings: [SQLValue] {
        get { sql.bindings }
        set { sql.bindings = newValue }
    }
    /// How SQLite treats the value's stored form, when its type is known.
    var traits = StorageTraits.plain
    /// The model the value refers to, when it is a row or a relationship.
    var reference: ModelReference?
    /// Whether the fragment is a SQL condition (a comparison, `AND`, `EXISTS`, …) rather than a
    /// value; see ``PredicateSQL/condition(_:)``.
    var isCondition = false
    /// Whether the fragment is one bound value that is not NULL.
    var isNonNullConstant = false
    /// Whether the fragment is the bound constant `true` (a translation whose text depends on it
    /// is kept by a shape that records it: see ``PredicateLeaves/value(_:)``).
    var isTrueConstant = false
    /// For a `Bool` or `Bool?` value, a condition true where the value is true and false where it
    /// is false or NULL, never NULL, when one is known that serves better than `value IS true`:
    /// a `WHERE` of a bare `owner IN (…)` can be answered from an index on the owner column.
    var whenTrue: SQL?

    package init(_ text: String, bindings: [SQLValue] = [], type: Any.Type? = nil) {
        self.init(SQL(text: text, bindings: bindings), type: type)
    }

    init(_ sql: SQL, type: Any.Type? = nil) {
        self.sql = sql
        if let type { traits = .of(type) }
    }

    /// A model's row: its text is the row's primary key, qualified.
    static func row(of entity: Schema.Entity, qualifier: String) -> PredicateTerm {
        var fragment = PredicateTerm("\(qualifier).\(TableSQL.quotedPrimaryKey)")
        fragment.reference = .row(entity, qualifier: qualifier)
        return fragment
    }

    package static func == (lhs: PredicateTerm, rhs: PredicateTerm) -> Bool {
        lhs.sql == rhs.sql
    }

    /// Joins terms into one, as ``SQL/compose(_:_:)`` joins their SQL.
    package static func compose(_ template: StaticString, _ parts: PredicateTerm..., type: Any.Type? = nil) -> PredicateTerm {
        composeArray(template, parts, type: type)
    }

    /// ``compose(_:_:type:)`` with its parts in an array.
    static func composeArray(_ template: StaticString, _ parts: [PredicateTerm], type: Any.Type? = nil) -> PredicateTerm {
        PredicateTerm(SQL.compose(template, parts.map(\.sql)), type: type)
    }

    /// Whether the value is a `Double` or `Float`, which the store keeps as a blob when it is NaN.
    var isFloatingPoint: Bool { traits.isFloatingPoint }

    /// Whether SQLite orders the stored form differently from Swift: unsigned integers are stored
    /// as signed bit patterns and decimals as text.
    var hasUnorderedStorage: Bool { traits.hasUnorderedStorage }

    /// Whether SQLite's arithmetic on the stored form gives Swift's answer: signed integers do;
    /// unsigned integers, decimals and (possibly NaN) floating-point values do not.
    var isPlainNumber: Bool { !isFloatingPoint && !hasUnorderedStorage }
}

/// What model a predicate value refers to.
indirect enum ModelReference {
    /// A row of `entity`, whose columns are qualified by `qualifier`.
    case row(Schema.Entity, qualifier: String)
    /// A to-one: the fragment's value is the primary key of a row of `entity`.
    case key(of: Schema.Entity)
    /// A to-many of the row whose primary key is `owner`.
    case many(RelationshipInfo, owner: PredicateTerm)
    /// A row of a table that is not a model's, with its columns by key path.
    case record([AnyKeyPath: PredicateTerm])
}

/// Which predicate expression types translate, worked out once per type: the cast to
/// ``SQLTranslatable`` searches the tree type's conditional conformances on every call (about
/// 2,000 instructions for `$0.key == key`), where casting to the type found before compares one
/// type.
enum TranslatableTypes {
    /// A type is an immutable value, so sharing one across threads is safe.
    private struct Entry: @unchecked Sendable {
        let type: (any SQLTranslatable.Type)?
    }

    private static let cache = Mutex<[ObjectIdentifier: Entry]>([:])

    /// `expression` as ``SQLTranslatable``, or nil when its type has no translation.
    static func translatable(_ expression: any StandardPredicateExpression<Bool>) -> (any SQLTranslatable)? {
        let type = Swift.type(of: expression)
        let key = ObjectIdentifier(type)
        let entry: Entry
        if let known = cache.withLock({ $0[key] }) {
            entry = known
        } else {
            entry = Entry(type: type as? any SQLTranslatable.Type)
            cache.withLock { $0[key] = entry }
        }
        guard let translatableType = entry.type else { return nil }
        func cast<T: SQLTranslatable>(_: T.Type) -> any SQLTranslatable { expression as! T }
        return cast(translatableType)
    }
}

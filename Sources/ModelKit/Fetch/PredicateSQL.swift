import Foundation

/// Translates a Foundation `Predicate` into a SQL `WHERE` condition, with every value bound as a
/// parameter.
///
/// Each `PredicateExpressions` node the translator knows conforms to ``SQLTranslatable``; a node
/// that does not, or a construct SQLite would answer differently from Swift, throws
/// ``Untranslatable``, and the caller evaluates the predicate in Swift instead.
struct PredicateSQL {
    let entity: Schema.Entity
    /// What each predicate variable stands for: the model row, or an optional's unwrapped value.
    private var variables: [PredicateExpressions.VariableID: SQLFragment] = [:]
    private let root: PredicateExpressions.VariableID

    /// The `WHERE` condition for `predicate`.
    /// - Throws: ``Untranslatable`` naming the first node that has no SQL translation.
    static func condition<T: PersistentModel>(for predicate: Predicate<T>, entity: Schema.Entity) throws -> SQLFragment {
        var translator = PredicateSQL(entity: entity, root: predicate.variable.key)
        return try translator.translate(predicate.expression)
    }

    private init(entity: Schema.Entity, root: PredicateExpressions.VariableID) {
        self.entity = entity
        self.root = root
    }

    /// Translates a child node.
    mutating func translate(_ node: Any) throws -> SQLFragment {
        guard let translatable = node as? any SQLTranslatable else { throw Untranslatable(node) }
        return try translatable.sql(in: &self)
    }

    /// The column behind `keyPath` on the model variable `root`.
    func column(_ keyPath: AnyKeyPath, root: PredicateExpressions.VariableID) throws -> SQLFragment {
        guard root == self.root, let index = entity.column(for: keyPath) else { throw Untranslatable(keyPath) }
        let property = entity.properties[index]
        return SQLFragment(entity.sql.columns[index], type: property.valueType, isColumn: true)
    }

    /// What a variable stands for: an optional's unwrapped value inside `flatMap`.
    func variable(_ id: PredicateExpressions.VariableID) throws -> SQLFragment {
        guard let fragment = variables[id] else { throw Untranslatable("a variable other than the model") }
        return fragment
    }

    /// Translates `body` with `id` standing for `value`.
    mutating func binding<R>(_ id: PredicateExpressions.VariableID, to value: SQLFragment, _ body: (inout Self) throws -> R) rethrows -> R {
        variables[id] = value
        defer { variables[id] = nil }
        return try body(&self)
    }
}

/// A predicate node, or a value, that has no SQL translation.
struct Untranslatable: Error, CustomStringConvertible {
    let node: String

    init(_ node: Any) {
        self.node = node as? String ?? String(describing: type(of: node)).replacingOccurrences(of: "PredicateExpressions.", with: "")
    }

    var description: String { "no SQL translation for \(node)" }
}

/// A piece of SQL and the values its parameters bind, in order.
struct SQLFragment: Equatable {
    var text: String
    var bindings: [SQLValue] = []
    /// The Swift type of the value, when known; some types compare differently in SQLite.
    var type: Any.Type?
    /// Whether this is a bare column, whose stored representation matters.
    var isColumn = false

    init(_ text: String, bindings: [SQLValue] = [], type: Any.Type? = nil, isColumn: Bool = false) {
        self.text = text
        self.bindings = bindings
        self.type = type
        self.isColumn = isColumn
    }

    static func == (lhs: SQLFragment, rhs: SQLFragment) -> Bool {
        lhs.text == rhs.text && lhs.bindings == rhs.bindings
    }

    /// Joins fragments into one, with `template`'s `$0`, `$1`, … replaced by their text. The
    /// placeholders must appear in order, so that the bindings line up with the parameters.
    static func compose(_ template: String, _ parts: SQLFragment..., type: Any.Type? = nil) -> SQLFragment {
        var text = ""
        var bindings: [SQLValue] = []
        var characters = template.makeIterator()
        while let character = characters.next() {
            guard character == "$", let digit = characters.next()?.wholeNumberValue else {
                text.append(character)
                continue
            }
            text += parts[digit].text
            bindings += parts[digit].bindings
        }
        return SQLFragment(text, bindings: bindings, type: type)
    }

    /// Whether the value is a `Double` or `Float`, which the store keeps as a blob when it is NaN.
    var isFloatingPoint: Bool { Self.unwrapped(type).map { $0 is any BinaryFloatingPoint.Type } ?? false }

    /// Whether SQLite orders the stored form differently from Swift: unsigned integers are stored
    /// as signed bit patterns and decimals as text.
    var hasUnorderedStorage: Bool {
        guard let type = Self.unwrapped(type) else { return false }
        return type is any UnsignedInteger.Type || type == Decimal.self
    }

    /// Whether SQLite's arithmetic on the stored form gives Swift's answer: signed integers do;
    /// unsigned integers, decimals and (possibly NaN) floating-point values do not.
    var isPlainNumber: Bool { !isFloatingPoint && !hasUnorderedStorage }

    private static func unwrapped(_ type: Any.Type?) -> Any.Type? {
        guard let type else { return nil }
        return (type as? any OptionalProtocol.Type)?.wrappedType ?? type
    }
}

import Foundation
import Synchronization

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
        return SQLFragment(entity.sql.columns[index], type: property.valueType)
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
    /// How SQLite treats the value's stored form, when its type is known.
    var traits = StorageTraits.plain

    init(_ text: String, bindings: [SQLValue] = [], type: Any.Type? = nil) {
        self.text = text
        self.bindings = bindings
        if let type { traits = .of(type) }
    }

    static func == (lhs: SQLFragment, rhs: SQLFragment) -> Bool {
        lhs.text == rhs.text && lhs.bindings == rhs.bindings
    }

    /// Joins fragments into one, with `template`'s `$0`, `$1`, … replaced by their text. The
    /// placeholders must appear in order, so that the bindings line up with the parameters.
    static func compose(_ template: String, _ parts: SQLFragment..., type: Any.Type? = nil) -> SQLFragment {
        var text = ""
        var bindings: [SQLValue] = []
        var pendingDollar = false
        for byte in template.utf8 {
            if pendingDollar, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                let part = parts[Int(byte - UInt8(ascii: "0"))]
                text += part.text
                bindings += part.bindings
                pendingDollar = false
                continue
            }
            if pendingDollar { text.append("$") }
            pendingDollar = byte == UInt8(ascii: "$")
            if !pendingDollar { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        }
        if pendingDollar { text.append("$") }
        return SQLFragment(text, bindings: bindings, type: type)
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

/// How SQLite's handling of a type's stored form differs from Swift's, worked out once per type.
struct StorageTraits: Sendable {
    static let plain = StorageTraits(isFloatingPoint: false, hasUnorderedStorage: false)
    private static let cache = Mutex<[ObjectIdentifier: StorageTraits]>([:])

    let isFloatingPoint: Bool
    let hasUnorderedStorage: Bool

    static func of(_ type: Any.Type) -> StorageTraits {
        if let cached = cache.withLock({ $0[ObjectIdentifier(type)] }) { return cached }
        let unwrapped = (type as? any OptionalProtocol.Type)?.wrappedType ?? type
        let traits = StorageTraits(
            isFloatingPoint: unwrapped is any BinaryFloatingPoint.Type,
            hasUnorderedStorage: unwrapped is any UnsignedInteger.Type || unwrapped == Decimal.self)
        cache.withLock { $0[ObjectIdentifier(type)] = traits }
        return traits
    }
}

import Foundation
import Synchronization

/// What a predicate's translation depends on besides its expression's type, gathered by a walk
/// much cheaper than translating: the key paths it reads, its operators, how its variables are
/// used, and its constants, with what of each the SQL text depends on (nil or not, a list's
/// length). Two
/// predicates of one expression type with equal ``keyPaths`` and ``shape`` translate to the same
/// SQL text; only the bindings, taken from ``constants``, differ.
struct PredicateLeaves {
    var keyPaths: [AnyKeyPath] = []
    /// Variable ordinals and constant profiles, in walk order.
    var shape: [Int] = []
    var constants: [LeafConstant] = []
    private var variables: [PredicateExpressions.VariableID] = []

    mutating func variable(_ id: PredicateExpressions.VariableID) {
        if let ordinal = variables.firstIndex(of: id) {
            shape.append(ordinal)
        } else {
            shape.append(variables.count)
            variables.append(id)
        }
    }

    /// Which operator a node applies, where the node's type does not say (`<` or `>`, `+` or `-`).
    mutating func `operator`(_ code: Int) {
        shape.append(code)
    }

    mutating func keyPath(_ keyPath: AnyKeyPath) {
        keyPaths.append(keyPath)
    }

    /// A constant, as `PredicateExpressions.Value` holds it.
    mutating func value<Value>(_ value: Value) {
        let constant: LeafConstant
        if BindableTypes.contains(Value.self), let bindable = value as? any SQLBindable {
            constant = .value(bindable.boundValue)
        } else if let codec = ValueCodec.make(for: Value.self), let encoded = try? codec.encode(value) {
            // A negative zero is stored as a blob, which SQL compares above every number; in a
            // predicate it is the zero Swift finds it equal to.
            constant = .value(codec.affinity == .real && encoded == Self.negativeZero ? .real(0) : encoded)
        } else {
            constant = .unencodable
        }
        constants.append(constant)
        shape.append(constant.profile)
        // `== true` may translate to the condition alone (see `PredicateTerm.whenTrue`).
        if Self.isBoolean(Value.self) { shape.append(value as? Bool == true ? 1 : 0) }
    }

    /// Whether a constant of type `type` is a `Bool` or `Bool?`, whose value the shape records.
    static func isBoolean(_ type: Any.Type) -> Bool { type == Bool.self || type == Bool?.self }

    private static let negativeZero = (-0.0).sqlValue

    /// The values of `[values].contains(…)`, each encoded as its element type is stored.
    mutating func list<Element>(_ values: [Element]) {
        let constant: LeafConstant
        if let codec = ValueCodec.make(for: Element.self), let encoded = try? values.map({ try codec.encode($0) }) {
            constant = .list(encoded)
        } else {
            constant = .unencodable
        }
        constants.append(constant)
        shape.append(constant.profile)
    }
}

/// Which constant types are ``SQLBindable``, worked out once per type: most constants are not,
/// and casting each to find out searches its conformances.
private enum BindableTypes {
    private static let cache = Mutex<[ObjectIdentifier: Bool]>([:])

    static func contains(_ type: Any.Type) -> Bool {
        let key = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[key] }) { return known }
        let isBindable = type is any SQLBindable.Type
        cache.withLock { $0[key] = isBindable }
        return isBindable
    }
}

/// A constant of a predicate, encoded.
enum LeafConstant {
    case value(SQLValue)
    case list([SQLValue])
    /// A value with no stored form: the predicate runs in Swift.
    case unencodable

    /// What of the constant a translation's text may depend on.
    var profile: Int {
        switch self {
        case .unencodable: return -1
        case .value(let value): return value == .null ? -2 : -3
        case .list(let values):
            guard values.count > PredicateTerm.longestParameterList else { return -4 - values.count }
            let hasReals = values.contains { if case .real = $0 { true } else { false } }
            let hasBlobs = values.contains { if case .blob = $0 { true } else { false } }
            return -1000 - (hasReals ? 1 : 0) - (hasBlobs ? 2 : 0)
        }
    }
}

/// Where a binding of a translated predicate comes from. A translation binds each constant as a
/// placeholder value naming the constant; ``resolve(_:constants:)`` puts the constants' values
/// in, so that one translation serves every predicate of its shape.
enum BindingSource: Equatable, Sendable {
    case literal(SQLValue)
    case constant(Int)
    /// Element `index` of list `constant`.
    case element(constant: Int, index: Int)
    /// List `constant` as one JSON array.
    case json(constant: Int)

    /// Blobs that no value a predicate holds begins with: the placeholders.
    private static let marker = Data([0xD4, 0x6B, 0x1F, 0x93, 0x5E, 0xA0, 0x37, 0xC2, 0x88, 0x0E, 0x61, 0xF5])

    /// The placeholder value standing for this source in a translation's bindings.
    var placeholder: SQLValue {
        var data = Self.marker
        func append(_ number: Int) { withUnsafeBytes(of: UInt32(number).littleEndian) { data.append(contentsOf: $0) } }
        switch self {
        case .literal(let value): return value
        case .constant(let index):
            data.append(0)
            append(index)
        case .element(let constant, let index):
            data.append(1)
            append(constant)
            append(index)
        case .json(let constant):
            data.append(2)
            append(constant)
        }
        return .blob(data)
    }

    /// The source of a binding of a translation: a placeholder's, or the binding itself.
    init(binding: SQLValue) {
        guard case .blob(let data) = binding, data.count > Self.marker.count, data.starts(with: Self.marker) else {
            self = .literal(binding)
            return
        }
        let body = Array(data.dropFirst(Self.marker.count))
        func number(at offset: Int) -> Int {
            Int(UInt32(body[offset]) | UInt32(body[offset + 1]) << 8 | UInt32(body[offset + 2]) << 16 | UInt32(body[offset + 3]) << 24)
        }
        switch body[0] {
        case 0: self = .constant(number(at: 1))
        case 1: self = .element(constant: number(at: 1), index: number(at: 5))
        default: self = .json(constant: number(at: 1))
        }
    }

    /// The value to bind, from the predicate's constants.
    func resolve(_ constants: [LeafConstant]) throws -> SQLValue {
        switch self {
        case .literal(let value):
            return value
        case .constant(let index):
            guard case .value(let value) = constants[index] else { throw Untranslatable("a constant") }
            return value
        case .element(let constant, let index):
            guard case .list(let values) = constants[constant] else { throw Untranslatable("a list") }
            return values[index]
        case .json(let constant):
            guard case .list(let values) = constants[constant] else { throw Untranslatable("a list") }
            return .text(try PredicateTerm.jsonArray(of: values))
        }
    }
}

/// A translation with its bindings as sources, or why there is none.
struct RecordedTranslation: Sendable {
    let text: String
    let isCondition: Bool
    let sources: [BindingSource]
    let failure: Untranslatable?

    init(_ translate: () throws -> PredicateTerm) throws {
        do {
            let fragment = try translate()
            text = fragment.text
            isCondition = fragment.isCondition
            sources = fragment.bindings.map(BindingSource.init(binding:))
            failure = nil
        } catch let error as Untranslatable {
            (text, isCondition, sources, failure) = ("", false, [], error)
        }
    }

    /// The translation of a predicate with these constants.
    func fragment(with constants: [LeafConstant]) throws -> PredicateTerm {
        if let failure { throw failure }
        var fragment = PredicateTerm(text, bindings: try sources.map { try $0.resolve(constants) })
        fragment.isCondition = isCondition
        return fragment
    }
}

/// An entity's predicate translations, by shape. Bounded: past ``limit`` shapes it starts over,
/// so predicates built with ever-new key paths cannot grow it without end.
final class TranslationCache: Sendable {
    /// Key paths are immutable values, so sharing them across threads is safe.
    struct Key: Hashable, @unchecked Sendable {
        let expression: ObjectIdentifier
        let dialect: SQLDialect
        let keyPaths: [AnyKeyPath]
        let shape: [Int]
    }

    static let limit = 256
    /// The translations by key, and the one found last: a predicate run in a loop compares equal
    /// to it without being hashed.
    private let entries = Mutex<(byKey: [Key: RecordedTranslation], last: (key: Key, translation: RecordedTranslation)?)>(([:], nil))

    /// How many shapes the cache holds.
    var count: Int { entries.withLock { $0.byKey.count } }

    subscript(key: Key) -> RecordedTranslation? {
        entries.withLock { entries in
            if let last = entries.last, last.key == key { return last.translation }
            guard let translation = entries.byKey[key] else { return nil }
            entries.last = (key, translation)
            return translation
        }
    }

    func store(_ translation: RecordedTranslation, for key: Key) {
        entries.withLock { entries in
            if entries.byKey.count >= Self.limit { entries.byKey.removeAll() }
            entries.byKey[key] = translation
            entries.last = (key, translation)
        }
    }
}

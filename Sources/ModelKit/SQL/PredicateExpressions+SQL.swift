import Foundation

/// A predicate node with a SQL translation. Conformances below cover the nodes `#Predicate`
/// produces for comparisons, logic, arithmetic, strings, collections, optionals, relationships
/// and conditionals; a node conforms when its children do.
protocol SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm
    /// Adds the node's key paths, variables and constants to `leaves`, children in the order
    /// ``sql(in:)`` translates them, so that constants are numbered alike.
    func collect(into leaves: inout PredicateLeaves)
}

extension PredicateExpressions.Variable: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try translator.variable(key)
    }

    func collect(into leaves: inout PredicateLeaves) { leaves.variable(key) }
}

/// A property of the model, or of a related model (`$0.shelf?.name`, as a lookup), or the
/// `count` or `isEmpty` of a to-many (as a `COUNT`).
extension PredicateExpressions.KeyPath: SQLTranslatable where Root: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        let base = try root.sql(in: &translator)
        guard case .many? = base.reference else {
            do {
                return try translator.member(keyPath, of: base)
            } catch is Untranslatable {
                throw Untranslatable(self)
            }
        }
        let array = Root.Output.self as? any ModelArray.Type
        switch keyPath as AnyKeyPath {
        case array?.countKeyPath: return try translator.count(of: base)
        case array?.isEmptyKeyPath: return .condition("($0 = 0)", try translator.count(of: base))
        default: throw Untranslatable(self)
        }
    }

    func collect(into leaves: inout PredicateLeaves) {
        root.collect(into: &leaves)
        leaves.keyPath(keyPath)
    }
}

/// `models.contains { … }` on a to-many, as `EXISTS` over the related rows.
extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try translator.exists(in: try sequence.sql(in: &translator), where: variable.key) { try test.sql(in: &$0) }
    }

    func collect(into leaves: inout PredicateLeaves) {
        sequence.collect(into: &leaves)
        leaves.variable(variable.key)
        test.collect(into: &leaves)
    }
}

/// A value that a predicate compares as one SQL value of its own, rather than as a stored
/// attribute: a history token compares as its transaction number.
protocol SQLBindable {
    var boundValue: SQLValue { get }
}

extension PredicateExpressions.Value: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        let (index, constant) = translator.takeConstant()
        guard case .value(let encoded) = constant else { throw Untranslatable("a value of type \(Output.self)") }
        let placeholder = BindingSource.constant(index).placeholder
        if value is any SQLBindable {
            return PredicateTerm(translator.dialect.parameter(.integer), bindings: [placeholder], type: Int64.self)
        }
        var parameter = PredicateTerm(translator.dialect.parameter(ValueCodec.make(for: Output.self)?.affinity), bindings: [placeholder], type: Output.self)
        parameter.isNonNullConstant = encoded != .null
        parameter.isTrueConstant = PredicateLeaves.isBoolean(Output.self) && value as? Bool == true
        return parameter
    }

    func collect(into leaves: inout PredicateLeaves) { leaves.value(value) }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        PredicateTerm("NULL")
    }

    func collect(into leaves: inout PredicateLeaves) {}
}

/// `==` and `!=` use SQLite's `IS` and `IS NOT`, which treat NULL as a value, as Swift treats
/// nil. A NaN, stored as a blob, equals nothing.
extension PredicateExpressions.Equal: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        equality(try lhs.sql(in: &translator), try rhs.sql(in: &translator), isEqual: true, translator)
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        equality(try lhs.sql(in: &translator), try rhs.sql(in: &translator), isEqual: false, translator)
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

private func equality(_ lhs: PredicateTerm, _ rhs: PredicateTerm, isEqual: Bool, _ translator: PredicateSQL) -> PredicateTerm {
    // `$0.project?.members.contains { … } == true`: the condition itself, with no `CASE` around
    // it, so that SQLite can answer a `WHERE` of it from an index.
    if isEqual, rhs.isTrueConstant, let whenTrue = lhs.whenTrue { return .condition(PredicateTerm(whenTrue)) }
    if isEqual, lhs.isTrueConstant, let whenTrue = rhs.whenTrue { return .condition(PredicateTerm(whenTrue)) }
    let dialect = translator.dialect
    let left = translator.value(lhs)
    let right = translator.value(rhs)
    let op = isEqual ? dialect.spelling.nullSafeEqual : dialect.spelling.nullSafeNotEqual
    var comparison = PredicateTerm.compose("($0 $2 $1)", left, right, PredicateTerm(op))
    if isEqual, dialect.values.indexesServeOnlyPlainEquality, left.isNonNullConstant || right.isNonNullConstant {
        // PostgreSQL's indexes serve `=`, not `IS NOT DISTINCT FROM`. Against a value that is not
        // NULL, `a = v AND a IS NOT NULL` is the same test, false (never NULL) when `a` is NULL.
        let other = left.isNonNullConstant ? right : left
        comparison = PredicateTerm.compose("($0 = $1 AND $2 IS NOT NULL)", left, right, other)
    }
    // A NaN on one side only already fails `IS`, so two NaNs are what is left to tell: testing one
    // side is enough, and a constant's test runs once per query rather than once per row.
    guard left.isFloatingPoint, right.isFloatingPoint else { return .condition(comparison) }
    let nan = dialect.isNaN(right.isNonNullConstant ? right : left)
    let equal: PredicateTerm = isEqual ? .condition("($0 AND NOT $1)", comparison, nan) : .condition("($0 OR $1)", comparison, nan)
    guard let zeros = negativeZeroEquality(left, right, dialect) else { return equal }
    return isEqual ? .condition("($0 OR $1)", equal, zeros) : .condition("($0 AND NOT $1)", equal, zeros)
}

/// For a dialect that stores a negative zero apart from zero (SQLite's blob), the test that
/// `left` or `right` is one and that the two are equal once each is read as zero: `IS` sees the
/// blob, which no number equals, where Swift finds `-0.0 == 0.0`. Nil for the other dialects.
/// Against a constant (which binds a negative zero as zero), it is `value IS <negative zero> AND
/// 0.0 IS constant`: an index on the column serves it as a second search.
private func negativeZeroEquality(_ left: PredicateTerm, _ right: PredicateTerm, _ dialect: SQLDialect) -> PredicateTerm? {
    guard let zero = dialect.spelling.negativeZero else { return nil }
    let negativeZero = PredicateTerm(zero)
    switch (left.isNonNullConstant, right.isNonNullConstant) {
    case (true, true):
        return nil
    case (false, true):
        return .condition("(($0 IS $1) AND (0.0 IS $2))", left, negativeZero, right)
    case (true, false):
        return .condition("(($0 IS $1) AND ($2 IS 0.0))", right, negativeZero, left)
    case (false, false):
        guard let leftAsZero = dialect.negativeZeroAsZero(left), let rightAsZero = dialect.negativeZeroAsZero(right) else { return nil }
        return .condition("(($0 IS $2 OR $1 IS $2) AND ($3 IS $4))", left, right, negativeZero, leftAsZero, rightAsZero)
    }
}

/// `<`, `<=`, `>` and `>=`. Unsigned integers and decimals are stored in forms SQLite orders
/// differently, so they stay in Swift; a NaN compares false, as in Swift.
extension PredicateExpressions.Comparison: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        let left = translator.value(try lhs.sql(in: &translator))
        let right = translator.value(try rhs.sql(in: &translator))
        guard !left.hasUnorderedStorage, !right.hasUnorderedStorage else { throw Untranslatable(self) }
        let symbol = switch op {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        }
        let comparison = PredicateTerm.compose("($0 $2 $1)", left, right, PredicateTerm(symbol))
        // A NaN sorts above every number, so only one on the side the operator wants greater can
        // make the comparison true; one on the other side already makes it false.
        // A stored negative zero (SQLite's blob) is not tested apart here: the numbers it
        // belongs among and the blob are not one range of an index, and a second one would keep
        // SQLite from searching a range of the column (`a >= x && a < y`) at all.
        let greater = op == .greaterThan || op == .greaterThanOrEqual ? left : right
        guard greater.isFloatingPoint else { return .condition(comparison) }
        return .condition("($0 AND $1)", comparison, translator.dialect.isNotNaN(comparing: greater))
    }

    func collect(into leaves: inout PredicateLeaves) {
        let code = switch op {
        case .lessThan: 0
        case .lessThanOrEqual: 1
        case .greaterThan: 2
        case .greaterThanOrEqual: 3
        }
        leaves.operator(code)
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        .condition("($0 AND $1)", translator.condition(try lhs.sql(in: &translator)), translator.condition(try rhs.sql(in: &translator)))
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        .condition("($0 OR $1)", translator.condition(try lhs.sql(in: &translator)), translator.condition(try rhs.sql(in: &translator)))
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.Negation: SQLTranslatable where Wrapped: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        .condition("(NOT $0)", translator.condition(try wrapped.sql(in: &translator)))
    }

    func collect(into leaves: inout PredicateLeaves) { wrapped.collect(into: &leaves) }
}

extension PredicateExpressions.Arithmetic: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        let symbol = switch op {
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        }
        return try arithmetic(symbol, try lhs.sql(in: &translator), try rhs.sql(in: &translator), type: LHS.Output.self, translator)
    }

    func collect(into leaves: inout PredicateLeaves) {
        let code = switch op {
        case .add: 0
        case .subtract: 1
        case .multiply: 2
        }
        leaves.operator(code)
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

/// Integer `/` and `%` truncate toward zero in SQLite, as in Swift.
extension PredicateExpressions.IntDivision: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try arithmetic("/", try lhs.sql(in: &translator), try rhs.sql(in: &translator), type: LHS.Output.self, translator)
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try arithmetic("%", try lhs.sql(in: &translator), try rhs.sql(in: &translator), type: LHS.Output.self, translator)
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try arithmetic("/", try lhs.sql(in: &translator), try rhs.sql(in: &translator), type: LHS.Output.self, translator)
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

/// Arithmetic stays in Swift for unsigned integers and decimals, whose stored forms are not their
/// values, and for floating-point values, where a stored NaN would turn into a number.
private func arithmetic(
    _ symbol: String, _ left: PredicateTerm, _ right: PredicateTerm, type: Any.Type, _ translator: PredicateSQL
) throws -> PredicateTerm {
    guard left.isPlainNumber, right.isPlainNumber else { throw Untranslatable("arithmetic on \(type)") }
    return PredicateTerm.compose("($0 $2 $1)", translator.value(left), translator.value(right), PredicateTerm(symbol), type: type)
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable where Wrapped: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        let value = translator.value(try wrapped.sql(in: &translator))
        guard value.isPlainNumber else { throw Untranslatable(self) }
        return PredicateTerm.compose("(-$0)", value, type: Output.self)
    }

    func collect(into leaves: inout PredicateLeaves) { wrapped.collect(into: &leaves) }
}

/// `string.contains(other)`, as `instr`, so `%`, `_` and quotes in the text match literally.
extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable
where Base: SQLTranslatable, Other: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        guard Base.Output.self == String.self, Other.Output.self == String.self else { throw Untranslatable(self) }
        let position = translator.dialect.position(of: try other.sql(in: &translator), in: try base.sql(in: &translator))
        return .condition("($0 > 0)", position)
    }

    func collect(into leaves: inout PredicateLeaves) {
        other.collect(into: &leaves)
        base.collect(into: &leaves)
    }
}

/// `string.starts(with: prefix)`: the first occurrence of the prefix is at the start.
extension PredicateExpressions.SequenceStartsWith: SQLTranslatable where Base: SQLTranslatable, Prefix: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        guard Base.Output.self == String.self, Prefix.Output.self == String.self else { throw Untranslatable(self) }
        let position = translator.dialect.position(of: try prefix.sql(in: &translator), in: try base.sql(in: &translator))
        return .condition("($0 = 1)", position)
    }

    func collect(into leaves: inout PredicateLeaves) {
        prefix.collect(into: &leaves)
        base.collect(into: &leaves)
    }
}

/// `[values].contains(column)`, as `IN`, when the collection is a value.
extension PredicateExpressions.SequenceContains: SQLTranslatable where RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        guard sequence is PredicateExpressions.Value<LHS.Output>, let codec = ValueCodec.make(for: LHS.Output.Element.self) else {
            throw Untranslatable(self)
        }
        let element = translator.value(try self.element.sql(in: &translator))
        let (index, constant) = translator.takeConstant()
        guard !element.isFloatingPoint, case .list(let encoded) = constant else { throw Untranslatable(self) }
        guard !encoded.isEmpty else { return .condition("(1 = 0)") }
        guard encoded.count > PredicateTerm.longestParameterList else {
            let parameter = translator.dialect.parameter(codec.affinity)
            let list = PredicateTerm(
                Array(repeating: parameter, count: encoded.count).joined(separator: ", "),
                bindings: encoded.indices.map { BindingSource.element(constant: index, index: $0).placeholder })
            return .condition("($0 IN ($1))", element, list)
        }
        // JSON's decimal text may not give back a double's exact bits: long lists of them run in Swift.
        guard !encoded.contains(where: { if case .real = $0 { true } else { false } }) else { throw Untranslatable(self) }
        let array = PredicateTerm("?", bindings: [BindingSource.json(constant: index).placeholder])
        let hasBlobs = encoded.contains { if case .blob = $0 { true } else { false } }
        return .condition(translator.dialect.membership(of: element, in: array, affinity: codec.affinity, hasBlobs: hasBlobs))
    }

    func collect(into leaves: inout PredicateLeaves) {
        guard let values = sequence as? PredicateExpressions.Value<LHS.Output> else { return }
        element.collect(into: &leaves)
        leaves.list(Array(values.value))
    }
}

extension PredicateTerm {
    /// A condition made of `parts`, as ``compose(_:_:type:)`` makes it.
    package static func condition(_ template: StaticString, _ parts: PredicateTerm...) -> PredicateTerm {
        var result = composeArray(template, parts)
        result.isCondition = true
        return result
    }

    /// A fragment known to be a condition already.
    static func condition(_ fragment: PredicateTerm) -> PredicateTerm {
        var result = fragment
        result.isCondition = true
        return result
    }

    /// The most values bound one by one in an `IN` list. Longer lists are bound as one JSON array,
    /// so no list meets SQLite's limit on parameters, and statements (cached by their text) do not
    /// multiply with list lengths.
    static let longestParameterList = 64

    /// `values` as the text of one JSON array, for an `IN` list bound as one parameter (see
    /// ``SQLDialect/membership(of:in:affinity:hasBlobs:)``). Blobs, which JSON cannot hold, are
    /// their hex text. Written by hand: through `JSONSerialization`, each element cost about
    /// 14,000 instructions.
    /// - Throws: ``Untranslatable`` for a NaN or an infinity, which JSON cannot hold.
    static func jsonArray(of values: [SQLValue]) throws -> String {
        var json = "["
        for (index, value) in values.enumerated() {
            if index > 0 { json += "," }
            switch value {
            case .null: json += "null"
            case .integer(let integer): json += String(integer)
            case .real(let real):
                guard real.isFinite else { throw Untranslatable("a list holding \(real)") }
                json += "\(real)"
            case .text(let text): appendJSONString(text, to: &json)
            case .blob(let data): appendJSONString(data.hexText, to: &json)
            }
        }
        return json + "]"
    }

    /// `text` as a JSON string: quoted, with quotes, backslashes and control characters escaped.
    private static func appendJSONString(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\u{0}"..."\u{1F}": json += "\\u00" + String(scalar.value >> 4, radix: 16) + String(scalar.value & 15, radix: 16)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}

extension Data {
    /// The bytes as uppercase hex digits, two a byte.
    var hexText: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 2)
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `optional.flatMap { … }`, and optional chaining: nil stays nil, otherwise the transform runs
/// on the unwrapped value.
extension PredicateExpressions.OptionalFlatMap: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        let value = try wrapped.sql(in: &translator)
        let body = try translator.binding(variable.key, to: value) { try transform.sql(in: &$0) }
        var result = PredicateTerm.compose("(CASE WHEN $0 IS NULL THEN NULL ELSE $1 END)", translator.value(value), body, type: Result.self)
        result.reference = body.reference  // `a?.b?.c`: the next step reads the related row `b`
        result.isCondition = body.isCondition
        if let whenTrue = body.whenTrue {
            result.whenTrue = PredicateTerm.compose("($0 IS NOT NULL AND $1)", translator.value(value), PredicateTerm(whenTrue)).sql
        }
        return result
    }

    func collect(into leaves: inout PredicateLeaves) {
        wrapped.collect(into: &leaves)
        leaves.variable(variable.key)
        transform.collect(into: &leaves)
    }
}

/// `model is Subclass`, on the model or a to-one: by the row's `_type` (see
/// ``Schema/Entity/Hierarchy``).
extension PredicateExpressions.TypeCheck: SQLTranslatable where Input: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try translator.isKind(try input.sql(in: &translator), of: Desired.self)
    }

    func collect(into leaves: inout PredicateLeaves) { input.collect(into: &leaves) }
}

/// `model as? Subclass`: the row when its `_type` is the subclass's, else nil; a property of the
/// cast (`($0 as? BusinessTrip)?.perdiem`) is the subclass's column.
extension PredicateExpressions.ConditionalCast: SQLTranslatable where Input: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        try translator.cast(try input.sql(in: &translator), to: Desired.self)
    }

    func collect(into leaves: inout PredicateLeaves) { input.collect(into: &leaves) }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatable where LHS: SQLTranslatable, RHS: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        PredicateTerm.compose(
            "coalesce($0, $1)", translator.value(try lhs.sql(in: &translator)), translator.value(try rhs.sql(in: &translator)), type: Output.self)
    }

    func collect(into leaves: inout PredicateLeaves) {
        lhs.collect(into: &leaves)
        rhs.collect(into: &leaves)
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatable where Inner: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        var value = try inner.sql(in: &translator)
        value.traits = .of(Output.self)
        return value
    }

    func collect(into leaves: inout PredicateLeaves) { inner.collect(into: &leaves) }
}

extension PredicateExpressions.Conditional: SQLTranslatable
where Test: SQLTranslatable, If: SQLTranslatable, Else: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        PredicateTerm.compose(
            "(CASE WHEN $0 THEN $1 ELSE $2 END)", translator.condition(try test.sql(in: &translator)),
            translator.value(try trueBranch.sql(in: &translator)), translator.value(try falseBranch.sql(in: &translator)), type: Output.self)
    }

    func collect(into leaves: inout PredicateLeaves) {
        test.collect(into: &leaves)
        trueBranch.collect(into: &leaves)
        falseBranch.collect(into: &leaves)
    }
}

/// `string.localizedStandardContains(other)`: in SQL where the dialect gives Swift's own answer
/// (SQLite calls back into Swift), else untranslatable, so the fetch filters in Swift.
extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatable
where Root: SQLTranslatable, Other: SQLTranslatable {
    func sql(in translator: inout PredicateSQL) throws -> PredicateTerm {
        guard Root.Output.self == String.self, Other.Output.self == String.self,
            let contains = translator.dialect.localizedStandardContains(
                try other.sql(in: &translator), in: try root.sql(in: &translator))
        else { throw Untranslatable(self) }
        return contains
    }

    func collect(into leaves: inout PredicateLeaves) {
        other.collect(into: &leaves)
        root.collect(into: &leaves)
    }
}

import SwiftSyntax

/// A stored property of a `@Model` class that the engine persists, as the macros see it.
struct PersistedProperty {
    let name: String
    /// The declared type, or the type of a literal default; nil when Swift infers it from another
    /// default value (`var date = Date.now`), which the generated code then never spells.
    let type: TypeSyntax?
    let defaultValue: ExprSyntax?
    /// The arguments of the property's `@Attribute(…)`, if it has one.
    let attributeArguments: LabeledExprListSyntax?
    /// The arguments of the property's `@Relationship(…)`, if it has one.
    let relationshipArguments: LabeledExprListSyntax?

    /// The `.transformable(by: …)` option of the property's `@Attribute`, if it has one.
    var transformableOption: ExprSyntax? {
        attributeArguments?.first { $0.label == nil && $0.expression.trimmedDescription.contains("transformable(") }?.expression
    }

    /// The standard types a property of which cannot be a relationship, optional or in an array.
    private static let plainTypes: Set<String> = [
        "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float",
        "String", "Date", "Data", "UUID", "URL", "Decimal",
    ]

    /// Whether the property's type is plainly not a relationship: a standard value type, or an
    /// optional or array of one.
    /// An inferred type counts as not plain: the relationship overloads then pick by the type
    /// Swift infers, and do nothing for a value.
    var isPlainValue: Bool {
        guard var name = type?.trimmedDescription else { return false }
        if name.hasSuffix("?") { name.removeLast() }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return Self.plainTypes.contains(name)
    }

    /// The persisted properties of `classDecl`, in declaration order, or the diagnostics explaining
    /// why a stored property cannot be persisted.
    static func all(in classDecl: ClassDeclSyntax) throws -> [PersistedProperty] {
        try classDecl.memberBlock.members.compactMap { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { return nil }
            return try PersistedProperty(variable)
        }
    }

    /// The protocols `@Model` classes commonly spell first, which are no superclass.
    private static let knownProtocols: Set<String> = [
        "Identifiable", "Codable", "Decodable", "Encodable", "Hashable", "Equatable", "Comparable", "Sendable", "Observable",
        "PersistentModel", "CustomStringConvertible", "CustomDebugStringConvertible", "Transferable",
    ]

    /// Whether the class may subclass another model: its first inherited type is not a protocol
    /// `@Model` classes commonly adopt. A root class taken for a subclass still works; it only
    /// numbers its columns from a constant 0 and links its relationships' inverses by a scan.
    static func mayBeSubclass(_ classDecl: ClassDeclSyntax) -> Bool {
        guard var first = classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription else { return false }
        if let dot = first.lastIndex(of: ".") { first = String(first[first.index(after: dot)...]) }
        return !knownProtocols.contains(first) && !first.hasPrefix("@") && !first.hasSuffix("Protocol")
    }

    /// The static property holding the column of the first property `typeName` declares.
    static func firstColumn(of typeName: String) -> String { "\(typeName)._modelKitFirstColumnOf\(typeName)" }

    /// Reads `variable`, returning nil for what is not persisted: computed, static and
    /// `@Transient` properties.
    init?(_ variable: VariableDeclSyntax) throws {
        guard !variable.isStatic, let binding = variable.bindings.first, !binding.isComputed else { return nil }
        let name = binding.pattern.trimmedDescription
        if variable.hasAttribute("Transient") {
            guard binding.initializer != nil else {
                throw MacroError("@Transient property '\(name)' needs a default value, which models loaded from the store start with")
            }
            return nil
        }
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            throw MacroError("persisted property '\(name)' must be a 'var'; mark it @Transient to keep it out of the store")
        }
        guard variable.bindings.count == 1, binding.pattern.is(IdentifierPatternSyntax.self) else {
            throw MacroError("declare persisted properties one per 'var' in a @Model class")
        }
        let type = binding.typeAnnotation?.type ?? Self.literalType(binding.initializer?.value)
        guard type != nil || binding.initializer != nil else {
            throw MacroError("persisted property '\(name)' needs a type or a default value, such as 'var \(name): Int = …'")
        }
        self.name = name
        self.type = type?.trimmed
        self.defaultValue = binding.initializer?.value.trimmed
        self.attributeArguments = variable.attribute("Attribute")?.arguments?.as(LabeledExprListSyntax.self)
        let relationship = variable.attribute("Relationship")
        self.relationshipArguments = relationship.map { $0.arguments?.as(LabeledExprListSyntax.self) ?? [] }
    }

    /// The type of a literal default value, for properties declared without a type.
    private static func literalType(_ expression: ExprSyntax?) -> TypeSyntax? {
        switch expression?.kind {
        case .integerLiteralExpr: "Int"
        case .floatLiteralExpr: "Double"
        case .stringLiteralExpr: "String"
        case .booleanLiteralExpr: "Bool"
        default: nil
        }
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    func attribute(_ name: String) -> AttributeSyntax? {
        attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }.first {
            $0.attributeName.trimmedDescription == name
        }
    }

    func hasAttribute(_ name: String) -> Bool { attribute(name) != nil }
}

extension PatternBindingSyntax {
    /// Whether the binding has a getter (or is a bare `{ … }` getter) rather than storage.
    /// Observers (`willSet`/`didSet`) still have storage.
    var isComputed: Bool {
        switch accessorBlock?.accessors {
        case .accessors(let accessors):
            accessors.contains { [.keyword(.get), .keyword(.set), .keyword(._read), .keyword(._modify)].contains($0.accessorSpecifier.tokenKind) }
        case .getter: true
        default: false
        }
    }
}

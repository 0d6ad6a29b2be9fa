import SwiftSyntax
import SwiftSyntaxMacros

/// `@Model`: makes a class persistent. It conforms the class to `PersistentModel`, routes each
/// persisted property through `@_PersistedProperty`, and generates the schema (names, key paths,
/// defaults and attributes) plus the initializer the engine uses to load a stored row.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            throw MacroError("@Model can only be applied to a class")
        }
        let typeName = classDecl.name.trimmedDescription
        // The compiler leaves out the conformances a type already has: none here, unless the
        // class spells `PersistentModel` itself, means it inherits it from a model superclass.
        let inherited = classDecl.inheritanceClause?.inheritedTypes.map(\.type.trimmedDescription) ?? []
        if protocols.isEmpty, let superclass = inherited.first,
            !inherited.contains(where: { $0 == "PersistentModel" || $0.hasSuffix(".PersistentModel") })
        {
            throw MacroError(
                "\(typeName) subclasses the model \(superclass): class inheritance of models (iOS 26) is not supported by ModelKit yet; "
                    + "make \(typeName) a model of its own, related to \(superclass) by a relationship")
        }
        let properties = try PersistedProperty.all(in: classDecl)
        let loads = properties.enumerated()
            .map { "_\($0.element.name) = try row.value(at: \($0.offset))" }
            .joined(separator: "\n")
        let encodings = properties.enumerated()
            .map { "case \($0.offset): try SQLValue._encode(_\($0.element.name))" }
            + ["default: preconditionFailure(\"\(typeName) has no persisted property at column \\(column)\")"]
        // Relationship access: a case for each property that may be a relationship; the overloads
        // of the called functions, picked from the property's type, make the others do nothing.
        // Reads load a fault first, and skip Observation: they are the engine's, not the app's.
        let related = properties.enumerated().filter { !$0.element.isPlainValue }
        let reads = related.map { index, property in
            "case \(index):\n_$modelKit._loadFault(of: self, at: \(index))\nreturn _modelKitRelationshipModels(_\(property.name))"
        } + ["default: return []"]
        let tests = related.map { index, property in
            "case \(index):\n_$modelKit._loadFault(of: self, at: \(index))\nreturn _modelKitRelationshipHolds(_\(property.name), model)"
        } + ["default: return false"]
        let inclusions = related.map { index, property in
            "case \(index): return _$modelKit._include(self, keyPath: \\.\(property.name), column: \(index)) { _modelKitRelationshipInclude(model, isIncluded, in: &_\(property.name)) }"
        } + ["default: return false"]
        let writes = related.map { index, property in
            "case \(index): if let value = _modelKitRelationshipValue(holding: models, as: Swift.type(of: _\(property.name))) { self.\(property.name) = value }"
        } + ["default: break"]
        let metadata = properties.map { property in
            var arguments = "name: \"\(property.name)\", keyPath: \\\(typeName).\(property.name)"
            if let value = property.defaultValue { arguments += ", defaultValue: \(value)" }
            if let attribute = property.attributeArguments { arguments += ", attribute: Schema.Attribute(\(attribute.trimmedDescription))" }
            if let relationship = property.relationshipArguments {
                arguments += ", relationship: Schema.Relationship(\(relationship.trimmedDescription))"
            }
            return "Schema.PropertyMetadata(\(arguments))"
        }
        return [
            "public let _$modelKit = ModelStorage()",
            """
            public required init(_modelKitRow row: ModelRow) throws {
            \(raw: loads)
            }
            """,
            """
            public func _modelKitValue(at column: Int) throws -> SQLValue {
                switch column {
            \(raw: encodings.joined(separator: "\n"))
                }
            }
            """,
            """
            public func _modelKitModels(at column: Int) -> [any PersistentModel] {
                switch column {
            \(raw: reads.joined(separator: "\n"))
                }
            }
            """,
            """
            public func _modelKitHolds(_ model: AnyObject, at column: Int) -> Bool {
                switch column {
            \(raw: tests.joined(separator: "\n"))
                }
            }
            """,
            """
            public func _modelKitSet(_ models: [any PersistentModel], at column: Int) {
                switch column {
            \(raw: writes.joined(separator: "\n"))
                }
            }
            """,
            """
            public func _modelKitInclude(_ model: AnyObject, _ isIncluded: Bool, at column: Int) -> Bool {
                switch column {
            \(raw: inclusions.joined(separator: "\n"))
                }
            }
            """,
            """
            public static var schemaMetadata: [Schema.PropertyMetadata] {
                [
            \(raw: metadata.map { "        \($0)," }.joined(separator: "\n"))
                ]
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
            let property = try? PersistedProperty(variable),
            let column = try PersistedProperty.all(in: classDecl).firstIndex(where: { $0.name == property.name })
        else { return [] }
        return ["@_PersistedProperty(column: \(raw: column))"]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): PersistentModel {}")]
    }
}

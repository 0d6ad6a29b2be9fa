import SwiftSyntax
import SwiftSyntaxMacros

/// `@Model`: makes a class persistent. It conforms the class to `PersistentModel`, routes each
/// persisted property through `@_PersistedProperty`, and generates the schema (names, key paths,
/// defaults and attributes) plus the initializer the engine uses to load a stored row.
///
/// On a subclass of a model (no conformance left to add), the generated members override the
/// superclass's: its columns come after the superclass's, each function handles its own and
/// passes the rest up, and the row initializer calls `super.init(_modelKitRow:)`.
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
        let superclass = protocols.isEmpty && !inherited.contains(where: { $0 == "PersistentModel" || $0.hasSuffix(".PersistentModel") })
            ? inherited.first : nil
        let properties = try PersistedProperty.all(in: classDecl)
        // A subclass's properties follow its superclass's: each function handles its own and
        // passes the others up.
        let firstColumn = PersistedProperty.firstColumn(of: typeName)
        let column: (Int) -> String = { superclass == nil ? "\($0)" : "\(firstColumn) + \($0)" }
        let selector = superclass == nil ? "column" : "column - \(firstColumn)"
        let loads = properties.enumerated()
            .map { index, property in
                // A transformed value loads through its column's codec, whatever its type.
                "_\(property.name) = try row.\(property.transformableOption == nil ? "value" : "_decodedValue")(at: \(column(index)))"
            }
            + (superclass == nil ? [] : ["try super.init(_modelKitRow: row)"])
        func fallback(_ call: String, root: String, returning: Bool = true) -> String {
            "default: " + (superclass == nil ? root : returning ? "return \(call)" : call)
        }
        let encodings = properties.enumerated()
            .map { index, property in
                guard let option = property.transformableOption else { return "case \(index): try SQLValue._encode(_\(property.name))" }
                return "case \(index): try SQLValue._encode(_\(property.name), transformedBy: \(option.trimmedDescription))"
            }
            + [fallback("try super._modelKitValue(at: column)",
                root: "preconditionFailure(\"\(typeName) has no persisted property at column \\(column)\")", returning: false)]
        // Relationship access: a case for each property that may be a relationship; the overloads
        // of the called functions, picked from the property's type, make the others do nothing.
        // Reads load a fault first, and skip Observation: they are the engine's, not the app's.
        let related = properties.enumerated().filter { !$0.element.isPlainValue }
        let reads = related.map { index, property in
            "case \(index):\n_$modelKit._loadFault(of: self, at: column)\nreturn _modelKitRelationshipModels(_\(property.name))"
        } + [fallback("super._modelKitModels(at: column)", root: "return []")]
        let tests = related.map { index, property in
            "case \(index):\n_$modelKit._loadFault(of: self, at: column)\nreturn _modelKitRelationshipHolds(_\(property.name), model)"
        } + [fallback("super._modelKitHolds(model, at: column)", root: "return false")]
        let inclusions = related.map { index, property in
            "case \(index): return _$modelKit._include(self, keyPath: \\.\(property.name), column: column) { _modelKitRelationshipInclude(model, isIncluded, in: &_\(property.name)) }"
        } + [fallback("super._modelKitInclude(model, isIncluded, at: column)", root: "return false")]
        let writes = related.map { index, property in
            "case \(index): if let value = _modelKitRelationshipValue(holding: models, as: Swift.type(of: _\(property.name))) { self.\(property.name) = value }"
        } + [fallback("super._modelKitSet(models, at: column)", root: "break")]
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let lookInheritance = PersistedProperty.mayBeSubclass(classDecl)
        let override = superclass == nil ? "" : "override "
        var members: [DeclSyntax] = []
        if let superclass {
            members.append("private static let \(raw: firstColumn.split(separator: ".").last!) = \(raw: superclass).schemaMetadata.count")
        } else {
            // The engine's state, stored in the model itself (one allocation a model); `_$modelKit`
            // views it (see ModelStorage). Subclasses share their root's.
            members.append("@exclusivity(unchecked) public final var _$modelKitState = ModelStorage.State()")
            members.append("public final var _$modelKit: ModelStorage { withUnsafeMutablePointer(to: &_$modelKitState) { ModelStorage(self, $0) } }")
            if lookInheritance {
                members.append("private static var \(raw: firstColumn.split(separator: ".").last!): Int { 0 }")
            }
        }
        members += indexLists(of: classDecl, typeName: typeName, isSubclass: superclass != nil, isFinal: isFinal)
        func function(_ signature: String, _ cases: [String]) -> DeclSyntax {
            """
            public \(raw: override)func \(raw: signature) {
                switch \(raw: selector) {
            \(raw: cases.joined(separator: "\n"))
                }
            }
            """
        }
        return members + [
            """
            public required init(_modelKitRow row: borrowing ModelRow) throws {
            \(raw: loads.joined(separator: "\n"))
            }
            """,
            function("_modelKitValue(at column: Int) throws -> SQLValue", encodings),
            function("_modelKitModels(at column: Int) -> [any PersistentModel]", reads),
            function("_modelKitHolds(_ model: AnyObject, at column: Int) -> Bool", tests),
            function("_modelKitSet(_ models: [any PersistentModel], at column: Int)", writes),
            function("_modelKitInclude(_ model: AnyObject, _ isIncluded: Bool, at column: Int) -> Bool", inclusions),
            schemaMetadata(properties, typeName: typeName, isSubclass: superclass != nil, isFinal: isFinal, lookInheritance: lookInheritance),
        ]
    }

    /// `schemaMetadata`: each property's name, key path, default and attributes. A class that may
    /// have subclasses describes its properties with key paths rooted at the class it is called
    /// on, so that a subclass's entity finds inherited properties by its own key paths
    /// (`\BusinessTrip.name`, not `\Trip.name`); a subclass adds its own to its superclass's.
    private static func schemaMetadata(
        _ properties: [PersistedProperty], typeName: String, isSubclass: Bool, isFinal: Bool, lookInheritance: Bool
    ) -> DeclSyntax {
        let root = isFinal ? typeName : "Root"
        let metadata = properties.map { property in
            var arguments = "name: \"\(property.name)\", keyPath: \\\(root).\(property.name)"
            if let value = property.defaultValue { arguments += ", defaultValue: \(value)" }
            if let attribute = property.attributeArguments { arguments += ", attribute: Schema.Attribute(\(attribute.trimmedDescription))" }
            if let relationship = property.relationshipArguments {
                arguments += ", relationship: Schema.Relationship(\(relationship.trimmedDescription))"
            }
            if lookInheritance, !property.isPlainValue { arguments += ", notesInitialValue: false" }
            return "Schema.PropertyMetadata(\(arguments)),"
        }
        func list(indent: String) -> String {
            ([indent + "["] + metadata.map { indent + "    " + $0 } + [indent + "]"]).joined(separator: "\n")
        }
        let body =
            isFinal
            ? (isSubclass ? "    super.schemaMetadata + [\n" + metadata.map { "        " + $0 }.joined(separator: "\n") + "\n    ]" : list(indent: "    "))
            : """
                func metadata<Root: \(typeName)>(_: Root.Type) -> [Schema.PropertyMetadata] {
            \(list(indent: "        "))
                }
                return \(isSubclass ? "super.schemaMetadata + " : "")metadata(Self.self)
            """
        let kind = isSubclass ? "override class" : isFinal ? "static" : "class"
        return """
            public \(raw: kind) var schemaMetadata: [Schema.PropertyMetadata] {
            \(raw: body)
            }
            """
    }

    /// `_modelKitIndexes` and `_modelKitUniqueConstraints`, from the class's `#Index` and
    /// `#Unique`: a class that may have subclasses declares them as `class var`, and a subclass
    /// adds its own to its superclass's.
    private static func indexLists(of classDecl: ClassDeclSyntax, typeName: String, isSubclass: Bool, isFinal: Bool) -> [DeclSyntax] {
        let declared = classDecl.memberBlock.members.compactMap(IndexMacro.declaration)
        return [false, true].compactMap { unique -> DeclSyntax? in
            let requirement = unique ? "_modelKitUniqueConstraints" : "_modelKitIndexes"
            let own = declared.filter { $0.isUnique == unique }
            guard !own.isEmpty || (!isSubclass && !isFinal) else { return nil }
            let kind = isSubclass ? "override class" : isFinal ? "static" : "class"
            let lists = own.map { declaration in
                // `.binary([…])` and `.rtree([…])` are `Schema.Index` kinds; plain arrays are key paths.
                declaration.groups.contains { $0.hasPrefix(".") }
                    ? "Schema.Index<\(declaration.model)>(\(declaration.groups.joined(separator: ", ")))._modelKitKeyPaths"
                    : "[\(declaration.groups.joined(separator: ", "))] as [[PartialKeyPath<\(declaration.model)>]]"
            } + (isSubclass ? ["super.\(requirement)"] : [])
            let body = lists.isEmpty ? "[]" : lists.map { "(\($0) as [[AnyKeyPath]])" }.joined(separator: " + ")
            return "public \(raw: kind) var \(raw: requirement): [[AnyKeyPath]] { \(raw: body) }"
        }
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
        // Syntax cannot tell a superclass from a protocol: a class that may be a subclass numbers
        // its columns after its superclass's (a root's count from 0), and its initializers may
        // not reach the superclass's storage.
        guard PersistedProperty.mayBeSubclass(classDecl) else { return ["@_PersistedProperty(column: \(raw: column))"] }
        let typeName = classDecl.name.trimmedDescription
        return ["@_PersistedProperty(column: \(raw: PersistedProperty.firstColumn(of: typeName)) + \(raw: column), inSubclass: true)"]
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

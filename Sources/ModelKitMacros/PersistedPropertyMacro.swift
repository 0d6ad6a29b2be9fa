import SwiftSyntax
import SwiftSyntaxMacros

/// `@_PersistedProperty(column:)`, added by `@Model` to each persisted property: turns the stored
/// property into accessors over a private `_name` storage, so reads and writes reach Observation and
/// the model's context, while the class's own initializers keep compiling through the init accessor.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        let arguments = node.arguments?.as(LabeledExprListSyntax.self)
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = try PersistedProperty(variable),
            let column = arguments?.first?.expression
        else { return [] }
        let name = property.name
        // A relationship set by an initializer skips the setter, so its inverse is linked when the
        // model is inserted; the storage notes that there is one to link. A subclass's initializer
        // runs before its superclass's storage exists: the insert looks for such values instead.
        let inSubclass = arguments?.contains { $0.label?.text == "inSubclass" } ?? false
        let initializer: AccessorDeclSyntax =
            property.isPlainValue
            ? """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            """
            : inSubclass
            ? """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = _modelKitInitialValue(initialValue)
            }
            """
            : """
            @storageRestrictions(initializes: _\(raw: name), accesses: _$modelKitState)
            init(initialValue) {
                _\(raw: name) = _modelKitInitialValue(initialValue)
                _$modelKitState._noteInitialValue(initialValue)
            }
            """
        // A setter that may write a relationship passes the old and the new value, for the
        // overload its type picks to keep the inverse in step; a to-many holds each model once.
        let setter: AccessorDeclSyntax = property.isPlainValue
            ? """
            set {
                _$modelKit.mutate(self, keyPath: \\.\(raw: name), column: \(column)) {
                    _\(raw: name) = newValue
                }
            }
            """
            : """
            set {
                let newValue = _$modelKit._distinct(newValue)
                _$modelKit.mutate(self, keyPath: \\.\(raw: name), column: \(column), from: _\(raw: name), to: newValue) {
                    _\(raw: name) = newValue
                }
            }
            """
        return [
            initializer,
            """
            get {
                _$modelKit.access(self, keyPath: \\.\(raw: name), column: \(column))
                return _\(raw: name)
            }
            """,
            setter,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = try PersistedProperty(variable) else {
            return []
        }
        // Only the generated accessors reach the storage, each for one load, store or in-place
        // change that calls no code able to reach it again: Swift's dynamic check for overlapping
        // access to a class's field can never fire here, and is off.
        // Without a spelled type, the storage takes its type from the default value, which it
        // then also starts with; the init accessor or a loaded row overwrites it.
        guard let type = property.type else {
            return ["@exclusivity(unchecked) private var _\(raw: property.name) = \(property.defaultValue!)"]
        }
        // Storage of a `T?` starts as nil, and Swift then never passes the property's default to
        // the init accessor: such storage starts with the default itself.
        let spelled = type.trimmedDescription
        if let defaultValue = property.defaultValue, spelled.hasSuffix("?") || spelled.hasSuffix("!") {
            return ["@exclusivity(unchecked) private var _\(raw: property.name): \(type) = \(defaultValue)"]
        }
        return ["@exclusivity(unchecked) private var _\(raw: property.name): \(type)"]
    }
}

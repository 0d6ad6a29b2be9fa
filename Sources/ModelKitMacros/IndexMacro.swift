import SwiftSyntax
import SwiftSyntaxMacros

/// `#Index<T>([\.a], [\.b, \.c])` and `#Unique<T>([\.a, \.b])` inside a `@Model` class: each
/// expands to a static list of key-path groups that the schema reads to create indexes and
/// compound unique constraints.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let isUnique = node.macroName.text == "Unique"
        guard let model = node.genericArgumentClause?.arguments.first?.argument else {
            throw MacroError("#\(node.macroName.text) needs the model type, as in #\(node.macroName.text)<Item>([\\.name])")
        }
        let groups = node.arguments.map { $0.expression.trimmedDescription }
        guard !groups.isEmpty else { throw MacroError("#\(node.macroName.text) needs at least one array of key paths") }
        let name = isUnique ? "_modelKitUniqueConstraints" : "_modelKitIndexes"
        return [
            """
            public static var \(raw: name): [[AnyKeyPath]] {
                let groups: [[PartialKeyPath<\(model.trimmed)>]] = [\(raw: groups.joined(separator: ", "))]
                return groups
            }
            """
        ]
    }
}

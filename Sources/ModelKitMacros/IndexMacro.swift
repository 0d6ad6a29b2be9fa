import SwiftSyntax
import SwiftSyntaxMacros

/// `#Index<T>([\.a], [\.b, \.c])` and `#Unique<T>([\.a, \.b])` inside a `@Model` class: the
/// groups of key paths the schema indexes, or keeps unique together. The macro itself only
/// checks its arguments: `@Model`, which sees it among the class's members, declares the lists
/// (a subclass's adding to its superclass's, which a static member of each could not).
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard node.genericArgumentClause?.arguments.first?.argument != nil else {
            throw MacroError("#\(node.macroName.text) needs the model type, as in #\(node.macroName.text)<Item>([\\.name])")
        }
        guard !node.arguments.isEmpty else { throw MacroError("#\(node.macroName.text) needs at least one array of key paths") }
        return []
    }

    /// The `#Index` or `#Unique` that `member` is, if it is one: its model type, whether it is
    /// unique, and its groups of key paths as written.
    static func declaration(_ member: MemberBlockItemSyntax) -> (model: String, isUnique: Bool, groups: [String])? {
        guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self), ["Index", "Unique"].contains(expansion.macroName.text),
            let model = expansion.genericArgumentClause?.arguments.first?.argument
        else { return nil }
        return (model.trimmedDescription, expansion.macroName.text == "Unique", expansion.arguments.map(\.expression.trimmedDescription))
    }
}

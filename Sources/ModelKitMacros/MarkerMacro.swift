import SwiftSyntax
import SwiftSyntaxMacros

/// `@Transient`, `@Attribute` and `@Relationship` add no code of their own: they mark a property
/// for `@Model`, which reads them while expanding the class.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

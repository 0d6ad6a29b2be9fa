import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelActor` on an actor: gives it a container, a context of its own, and
/// `init(modelContainer:)`, as in SwiftData, so model work can run off the main actor.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { throw MacroError("@ModelActor can only be applied to an actor") }
        return [
            "public nonisolated let modelContainer: ModelContainer",
            "public let modelContext: ModelContext",
            """
            public init(modelContainer: ModelContainer) {
                self.modelContainer = modelContainer
                self.modelContext = ModelContext(modelContainer)
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): ModelActor {}")]
    }
}

import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelActor` on an actor: gives it a container, a model executor that owns a context of its
/// own, and `init(modelContainer:)`, as SwiftData's does, so model work runs off the main actor.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { throw MacroError("@ModelActor can only be applied to an actor") }
        return [
            "public nonisolated let modelExecutor: any ModelExecutor",
            "public nonisolated let modelContainer: ModelContainer",
            """
            public init(modelContainer: ModelContainer) {
                let modelContext = ModelContext(modelContainer)
                self.modelExecutor = DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
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

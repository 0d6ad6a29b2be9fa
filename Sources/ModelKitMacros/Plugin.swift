@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling
import SwiftSyntaxMacros

/// The compiler plugin entry point. The toolchain does not ship `SwiftCompilerPlugin`, so this is
/// its `@main` written out: a provider of macro types and a listener on standard I/O.
@main
struct ModelKitMacrosPlugin: PluginProvider {
    func resolveMacro(moduleName: String, typeName: String) throws -> any Macro.Type {
        switch typeName {
        case "ModelMacro": ModelMacro.self
        case "PersistedPropertyMacro": PersistedPropertyMacro.self
        case "IndexMacro": IndexMacro.self
        case "ModelActorMacro": ModelActorMacro.self
        case "MarkerMacro": MarkerMacro.self
        default: throw PluginError(message: "ModelKitMacros has no macro named \(typeName)")
        }
    }

    func loadPluginLibrary(libraryPath: String, moduleName: String) throws {
        throw PluginError(message: "ModelKitMacros cannot load plugin libraries")
    }

    static func main() throws {
        let connection = try StandardIOMessageConnection()
        let listener = CompilerPluginMessageListener(connection: connection, provider: Self())
        try listener.main()
    }
}

struct PluginError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

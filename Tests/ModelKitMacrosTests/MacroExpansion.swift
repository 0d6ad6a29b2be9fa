import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros

@testable import ModelKitMacros

/// Expands the macros in `source` and returns the expanded text and the diagnostics, for tests.
/// `inheritingConformances` expands as the compiler does for a class whose superclass already has
/// the macros' conformances: it passes none.
func expand(
    _ source: String, with macros: [String: any Macro.Type], inheritingConformances: Bool = false
) -> (source: String, diagnostics: [String]) {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(
        sourceFiles: [file: .init(moduleName: "Tests", fullFilePath: "Test.swift")])
    let specs = macros.mapValues { macro in
        let conformances: [TypeSyntax] =
            inheritingConformances ? [] : macro == ModelMacro.self ? ["PersistentModel"] : macro == ModelActorMacro.self ? ["ModelActor"] : []
        return MacroSpec(type: macro, conformances: conformances)
    }
    let expanded = file.expand(macroSpecs: specs, contextGenerator: { _ in context }, indentationWidth: .spaces(4))
    // Removing an attribute at the top of the file leaves its line break behind.
    let text = expanded.description.drop { $0.isNewline }
    return (String(text), context.diagnostics.map(\.message))
}

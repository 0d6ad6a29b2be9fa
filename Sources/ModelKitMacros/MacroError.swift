import SwiftDiagnostics
import SwiftSyntax

/// A diagnostic raised by a ModelKit macro.
struct MacroError: Error, DiagnosticMessage, CustomStringConvertible {
    let message: String
    var diagnosticID: MessageID { MessageID(domain: "ModelKitMacros", id: message) }
    var severity: DiagnosticSeverity { .error }
    var description: String { message }

    init(_ message: String) { self.message = message }
}

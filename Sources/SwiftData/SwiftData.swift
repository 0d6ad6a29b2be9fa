// On platforms without Apple's SwiftData, `import SwiftData` resolves to ModelKit, a compatible
// engine on SQLite, so the same model code compiles everywhere. Like Apple's framework, it brings
// Foundation (`SortDescriptor`, `#Predicate`, `Date`, …) and Observation (`@Observable`) along:
// Apple's module interface lists both among its re-exported imports.
@_exported import Foundation
@_exported import ModelKit
@_exported import Observation

// On platforms without Apple's SwiftData, `import SwiftData` resolves to ModelKit, a compatible
// engine on SQLite, so the same model code compiles everywhere.
@_exported import ModelKit

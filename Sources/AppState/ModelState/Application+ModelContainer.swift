#if canImport(SwiftData)
import SwiftData

extension Application {
    /// Registers the shared `ModelContainer`, with an id taken from the call site. The autoclosure
    /// runs once, on first use.
    ///
    /// ```swift
    /// extension Application {
    ///     var modelContainer: Dependency<ModelContainer> {
    ///         modelContainer(makeModelContainer())
    ///     }
    /// }
    /// ```
    ///
    /// `Application.dependency(\.modelContainer)` returns it, for example to hand to SwiftUI's
    /// `.modelContainer(_:)` so views and non-view code share one store.
    public func modelContainer(
        _ container: @autoclosure () -> ModelContainer,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> Dependency<ModelContainer> {
        dependency(container(), fileID, function, line, column)
    }

    /// The main context of the container at `keyPath`: the context every ``ModelState`` reads and
    /// writes through.
    @MainActor
    public static func modelContext(_ keyPath: KeyPath<Application, Dependency<ModelContainer>>) -> ModelContext {
        dependency(keyPath).mainContext
    }
}
#endif

#if canImport(SwiftUI) && canImport(Combine)
import Combine
import SwiftUI

/// A dependency that is an `ObservableObject`, observed by the SwiftUI view that holds it, as in
/// AppState: `@ObservedDependency(\.settings) var settings`. Apple platforms only.
@MainActor
@propertyWrapper
public struct ObservedDependency<Value: ObservableObject & Sendable>: DynamicProperty {
    @ObservedObject private var observed: Value

    /// Wraps the dependency at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.Dependency<Value>>) {
        _observed = ObservedObject(wrappedValue: Application.dependency(keyPath))
    }

    /// The dependency.
    public var wrappedValue: Value { observed }

    /// Bindings to the dependency's properties.
    public var projectedValue: ObservedObject<Value>.Wrapper { $observed }
}
#endif

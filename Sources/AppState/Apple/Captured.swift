#if canImport(SwiftUI)
/// A value a `Sendable` closure may capture. The projections wrap key paths in it: key paths are
/// immutable, but the standard library does not mark them `Sendable`.
struct Captured<Wrapped>: @unchecked Sendable {
    let value: Wrapped
}
#endif

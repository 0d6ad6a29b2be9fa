/// Marks a stored property of a `@Model` class as not persisted. It needs a default value, which
/// models loaded from the store start with.
@attached(peer)
public macro Transient() = #externalMacro(module: "ModelKitMacros", type: "MarkerMacro")

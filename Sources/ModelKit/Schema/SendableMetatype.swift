#if compiler(<6.2)
/// Swift 6.2's marker for types whose metatype crosses isolation domains, which SwiftData's
/// `PersistentModel`, `VersionedSchema` and `SchemaMigrationPlan` refine. Older compilers lack
/// it, and their metatypes are Sendable anyway, so there it is an empty protocol.
public protocol SendableMetatype {}
#endif

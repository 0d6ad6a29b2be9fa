/// Makes a class persistent, as SwiftData's `@Model` does.
///
/// ```swift
/// @Model
/// final class TodoItem {
///     var title: String
///     var isComplete = false
///     init(title: String) { self.title = title }
/// }
/// ```
///
/// Every stored `var` persists unless marked ``Transient()``; computed properties do not. Persisted
/// properties need a type annotation unless their default is a literal. The class keeps its own
/// initializers, and becomes `Observable`.
///
/// A subclass of a model is a model too when it has `@Model`: its properties follow its
/// superclass's, and its initializers call `super.init` (see <doc:ClassInheritance>).
@attached(
    member, conformances: PersistentModel, names: named(_$modelKit), named(_$modelKitState), named(init(_modelKitRow:)), named(_modelKitValue(at:)), named(schemaMetadata),
    named(_modelKitModels(at:)), named(_modelKitHolds(_:at:)), named(_modelKitSet(_:at:)),
    named(_modelKitInclude(_:_:at:)), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "ModelKitMacros", type: "ModelMacro")

/// Added by ``Model()`` to each persisted property. Not for direct use.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(column: Int, inSubclass: Bool = false) = #externalMacro(module: "ModelKitMacros", type: "PersistedPropertyMacro")

/// Configures a persisted property: `@Attribute(.unique)` makes inserting a model whose value is
/// already stored update the stored row instead; `originalName:` renames the column the property
/// was stored under.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "ModelKitMacros", type: "MarkerMacro")

/// Configures a property whose type is another model or an array of one: its delete rule and
/// its inverse, as in SwiftData.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Item.list) var items: [Item] = []
/// ```
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "ModelKitMacros", type: "MarkerMacro")

/// Marks a stored property of a `@Model` class as not persisted. It needs a default value, which
/// models loaded from the store start with.
@attached(peer)
public macro Transient() = #externalMacro(module: "ModelKitMacros", type: "MarkerMacro")

/// Declares indexes on a model, inside its class: `#Index<Trip>([\.name], [\.start, \.end])`
/// creates one index per array of key paths, on new and existing stores.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "ModelKitMacros", type: "IndexMacro")

/// Declares indexes of given kinds on a model, inside its class:
/// `#Index<Trip>(.binary([\.name]), .rtree([\.latitude, \.longitude]))`. Both kinds make an
/// ordinary index here (see ``Schema/Index``).
@freestanding(declaration)
public macro Index<T>(_ indices: Schema.Index<T>.Types<T>...) = #externalMacro(module: "ModelKitMacros", type: "IndexMacro")

/// Declares compound unique constraints on a model, inside its class:
/// `#Unique<Trip>([\.name, \.start])`. Inserting a model whose values for one of the arrays are
/// already stored updates the stored row, as `@Attribute(.unique)` does.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "ModelKitMacros", type: "IndexMacro")

/// Makes an actor a model actor, as in SwiftData: it gets `modelContainer`, a `modelExecutor`
/// (a ``DefaultSerialModelExecutor``, whose queue the actor runs on) that owns the actor's
/// `modelContext`, and `init(modelContainer:)`, so model work runs off the main actor.
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importItems(_ titles: [String]) throws {
///         for title in titles { modelContext.insert(TodoItem(title: title)) }
///         try modelContext.save()
///     }
/// }
/// let importer = Importer(modelContainer: container)
/// ```
@attached(member, names: named(modelContainer), named(modelExecutor), named(init(modelContainer:)))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "ModelKitMacros", type: "ModelActorMacro")

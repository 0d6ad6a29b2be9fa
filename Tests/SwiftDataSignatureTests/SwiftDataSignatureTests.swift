import Foundation
import Observation
import SwiftData
import Testing

// SwiftData's public API as Apple declares it (iOS 27.1 SDK), each declaration the package has
// written as a typed reference: a missing declaration, a changed label or a changed type fails
// this file's build. Declarations the package lacks are listed, with why, in the DocC article
// *Coming from SwiftData*; `BackingData` and the backing-data requirements of `PersistentModel`
// (hand-written conformances without `@Model`) are not part of it yet. The custom data store
// family is in DataStoreSignatures.swift.

@Model final class Sig {
    @Attribute(.unique) var name: String
    var count = 0
    @Relationship(deleteRule: .cascade, inverse: \SigChild.parent) var children: [SigChild] = []
    init(name: String) { self.name = name }
}

@Model final class SigPlace {
    #Index<SigPlace>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
    var name = ""
    var latitude = 0.0
    var longitude = 0.0
    init() {}
}

@Model final class SigChild {
    var parent: Sig?
    init() {}
}

/// A history transaction of a custom store, whose token is not a `HistoryToken`, as
/// `HistoryTransaction.TokenType` allows.
struct SigTransaction: HistoryTransaction {
    struct Token: Comparable, Hashable, Identifiable, Sendable {
        let id: Int
        static func < (lhs: Token, rhs: Token) -> Bool { lhs.id < rhs.id }
    }
    let id = 0
    let author: String? = nil
    let changes: [HistoryChange] = []
    let storeIdentifier = ""
    let timestamp = Date()
    let token = Token(id: 0)
    let transactionIdentifier = 0
    static func == (lhs: SigTransaction, rhs: SigTransaction) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

enum SigV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Sig.self, SigChild.self]
}

enum SigPlan: SchemaMigrationPlan {
    static let schemas: [any VersionedSchema.Type] = [SigV1.self]
    static let stages: [MigrationStage] = []
}

@ModelActor actor SigActor {}

/// References that compile only if each declaration is as Apple's.
@MainActor
func swiftDataSignatures(_ context: ModelContext, _ container: ModelContainer) throws {
    // MARK: ModelContainer
    let _: (Schema, (any SchemaMigrationPlan.Type)?, [any DataStoreConfiguration]) throws -> ModelContainer =
        ModelContainer.init(for:migrationPlan:configurations:)
    _ = try ModelContainer(for: Sig.self, SigChild.self, migrationPlan: nil, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    _ = try ModelContainer(for: Schema([Sig.self, SigChild.self]), migrationPlan: nil, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    _ = try ModelContainer(for: Sig.self, SigChild.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true) as any DataStoreConfiguration)
    let _: Schema = container.schema
    let _: Set<ModelConfiguration> = container.configurations
    let _: (any SchemaMigrationPlan.Type)? = container.migrationPlan
    let _: ModelContext = container.mainContext
    let _: () -> Void = container.deleteAllData
    let _: () throws -> Void = container.erase
    let _: Bool = container == container
    let _: (String) -> String? = container.storeIdentifier(forConfigurationNamed:)
    let _: (String) -> String? = container.configurationName(forStoreIdentifier:)

    // MARK: ModelConfiguration
    let configuration = ModelConfiguration(
        "Sig", schema: nil, isStoredInMemoryOnly: true, allowsSave: true, groupContainer: .automatic, cloudKitDatabase: .automatic)
    _ = ModelConfiguration(isStoredInMemoryOnly: true)
    _ = ModelConfiguration(for: Sig.self, isStoredInMemoryOnly: true)
    _ = ModelConfiguration("Sig", schema: nil, url: URL(fileURLWithPath: "/tmp/sig.store"), allowsSave: true, cloudKitDatabase: .none)
    let _: URL = configuration.url
    let _: Bool = configuration.allowsSave
    let _: Bool = configuration.isStoredInMemoryOnly
    let _: String = configuration.name
    let _: Schema? = configuration.schema
    let _: String? = configuration.cloudKitContainerIdentifier
    let _: ModelConfiguration.CloudKitDatabase = configuration.cloudKitDatabase
    let _: String? = configuration.groupAppContainerIdentifier
    let _: ModelConfiguration.GroupContainer = configuration.groupContainer
    let _: URL = configuration.id
    let _: String = configuration.debugDescription
    let _: () throws -> Void = configuration.validate
    let _: [ModelConfiguration.CloudKitDatabase] = [.automatic, .none, .private("iCloud.sig")]
    let _: [ModelConfiguration.GroupContainer] = [.automatic, .none, .identifier("group.sig")]

    // MARK: ModelContext
    _ = ModelContext(container)
    let _: ModelContainer = context.container
    let _: (FetchDescriptor<Sig>) throws -> [Sig] = context.fetch
    let _: (FetchDescriptor<Sig>, Int) throws -> FetchResultsCollection<Sig> = context.fetch(_:batchSize:)
    let _: (FetchDescriptor<Sig>) throws -> Int = context.fetchCount
    try context.enumerate(FetchDescriptor<Sig>(), batchSize: 10, allowEscapingMutations: false) { (_: Sig) in }
    let _: (PersistentIdentifier) -> any PersistentModel = context.model(for:)
    let _: Sig? = context.registeredModel(for: Sig(name: "x").persistentModelID)
    let _: [any PersistentModel] = context.insertedModelsArray
    let _: [any PersistentModel] = context.changedModelsArray
    let _: [any PersistentModel] = context.deletedModelsArray
    let _: (Sig) -> Void = context.insert
    let _: (Sig) -> Void = context.delete
    try context.delete(model: Sig.self, where: #Predicate { $0.count < 0 }, includeSubclasses: true)
    let _: Bool = context.hasChanges
    let autosave: Bool = context.autosaveEnabled
    context.autosaveEnabled = autosave
    let _: () throws -> Void = context.save
    try context.transaction {}
    let _: () -> Void = context.rollback
    let _: (FetchDescriptor<Sig>) throws -> [PersistentIdentifier] = context.fetchIdentifiers
    let _: (FetchDescriptor<Sig>, Int) throws -> FetchResultsCollection<PersistentIdentifier> = context.fetchIdentifiers(_:batchSize:)
    let _: () -> Void = context.processPendingChanges
    let _: [Notification.Name] = [ModelContext.willSave, ModelContext.didSave]
    context.undoManager = context.undoManager ?? UndoManager()
    let _: Bool = context == context
    let _: String = context.debugDescription
    let author: String? = context.author
    context.author = author
    let _: (HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] = context.fetchHistory
    let _: (HistoryDescriptor<DefaultHistoryTransaction>) throws -> Void = context.deleteHistory
    let _: [ModelContext.NotificationKey] = [
        .deletedIdentifiers, .insertedIdentifiers, .updatedIdentifiers, .invalidatedAllIdentifiers, .queryGeneration, .historyTokens,
    ]
    let _: String = ModelContext.NotificationKey.historyTokens.rawValue
    let _: ModelContext.NotificationKey? = ModelContext.NotificationKey(rawValue: "historyTokens")

    // MARK: FetchDescriptor and FetchResultsCollection
    var descriptor = FetchDescriptor<Sig>(predicate: #Predicate { $0.count > 0 }, sortBy: [SortDescriptor(\.name)])
    descriptor.predicate = nil
    descriptor.sortBy = []
    descriptor.fetchLimit = 1
    descriptor.fetchOffset = 0
    descriptor.includePendingChanges = true
    descriptor.relationshipKeyPathsForPrefetching = [\.children]
    descriptor.propertiesToFetch = [\.name]
    let results: FetchResultsCollection<Sig> = try context.fetch(FetchDescriptor<Sig>(), batchSize: 5)
    let _: Int = results.count
    let _: any RandomAccessCollection = results

    // MARK: PersistentIdentifier
    let identifier = Sig(name: "y").persistentModelID
    let _: PersistentIdentifier.ID = identifier.id
    let _: String? = identifier.storeIdentifier
    let _: String = identifier.entityName
    let _: Bool = identifier.isTemporary
    let _: Bool = identifier < identifier
    let _: (String, String, Int64) throws -> PersistentIdentifier = PersistentIdentifier.identifier(for:entityName:primaryKey:)
    let _: any Codable & Hashable & Sendable = identifier

    // MARK: PersistentModel
    let model = Sig(name: "z")
    let _: PersistentIdentifier = model.persistentModelID
    let _: ModelContext? = model.modelContext
    let _: Bool = model.hasChanges
    let _: Bool = model.isDeleted
    let _: [Schema.PropertyMetadata] = Sig.schemaMetadata
    let _: any Observable & Hashable & Identifiable = model

    // MARK: Schema
    let schema = Schema([Sig.self, SigChild.self], version: Schema.Version(1, 0, 0))
    _ = Schema(Sig.self, SigChild.self, version: Schema.Version(1, 0, 0))
    _ = Schema(versionedSchema: SigV1.self)
    let _: [Schema.Entity] = schema.entities
    let _: [String: Schema.Entity] = schema.entitiesByName
    let _: Schema.Version = schema.version
    let _: Schema.Entity? = schema.entity(for: Sig.self)
    let _: String = Schema.entityName(for: Sig.self)
    let version = Schema.Version(1, 2, 3)
    let _: [Int] = [version.major, version.minor, version.patch]
    let _: String = version.description
    let _: Bool = version < version && version == version
    let entity = schema.entitiesByName["Sig"]!
    let _: String = entity.name
    let _: Set<Schema.Attribute> = entity.attributes
    let _: Set<Schema.Relationship> = entity.relationships
    let _: [[String]] = entity.uniquenessConstraints
    let _: Schema.Entity? = entity.superentity
    let _: String? = entity.superentityName
    let _: Set<Schema.Entity> = entity.subentities
    let _: [String: Schema.Attribute] = entity.attributesByName
    let _: [String: Schema.Relationship] = entity.relationshipsByName
    let _: [[String]] = entity.indices
    let _: String = entity.debugDescription
    let _: String = schema.debugDescription
    let attribute = Schema.Attribute(.unique, originalName: nil, hashModifier: nil)
    let _: [Bool] = [attribute.isAttribute, attribute.isRelationship, attribute.isTransient, attribute.isTransformable, attribute.isCodable]
    let _: String = attribute.debugDescription
    let _: String = Schema.Attribute.Option.unique.debugDescription
    let _: [Schema.Attribute.Option] = attribute.options
    let _: String = attribute.name
    let _: Any.Type = attribute.valueType
    let _: Bool = attribute.isUnique
    let _: Any? = attribute.defaultValue
    let _: [Schema.Attribute.Option] = [
        .unique, .externalStorage, .allowsCloudEncryption, .preserveValueOnDeletion, .spotlight, .ephemeral, .codable,
        .transformable(by: "SigTransformer"), .transformable(by: ValueTransformer.self),
    ]
    let relationship = Schema.Relationship(
        .unique, deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 0, originalName: nil, inverse: nil, hashModifier: nil)
    let _: String = relationship.destination
    let _: String? = relationship.inverseName
    let _: Schema.Relationship.DeleteRule = relationship.deleteRule
    let _: Bool = relationship.isToOneRelationship
    let _: [Schema.Relationship.Option] = relationship.options
    let _: String? = relationship.hashModifier
    let _: Int? = relationship.maximumModelCount
    let _: Int? = relationship.minimumModelCount
    let _: String = relationship.name
    let _: [Bool] = [relationship.isAttribute, relationship.isRelationship, relationship.isTransient, relationship.isUnique]
    let _: AnyKeyPath? = relationship.inverseKeyPath
    let _: String = relationship.debugDescription
    let _: [Schema.Relationship.DeleteRule] = [.cascade, .deny, .noAction, .nullify]
    let _: Schema.Relationship.DeleteRule? = Schema.Relationship.DeleteRule(rawValue: "cascade")
    let _: any Codable = Schema.Relationship.DeleteRule.cascade
    let _: Schema.Relationship.Option = .unique

    // Schema, entities and properties as Apple's classes (iOS 17/18)
    _ = Schema()
    let handBuilt = Schema(Schema.Entity("Hand"), version: Schema.Version(1, 0, 0))
    let _: Schema.Version = Schema.schemaEncodingVersion
    let _: Schema.Version = handBuilt.encodingVersion
    let _: (URL) throws -> Void = schema.save(to:)
    let _: (URL) throws -> Schema = Schema.load(from:)
    let _: any Codable & Hashable = schema
    let _: [any SchemaProperty] = entity.properties
    let _: [any SchemaProperty] = entity.inheritedProperties
    let _: [String: any SchemaProperty] = entity.inheritedPropertiesByName
    let _: [any SchemaProperty] = entity.storedProperties
    let _: [String: any SchemaProperty] = entity.storedPropertiesByName
    let _: any Codable = entity
    let described = Schema.Attribute(
        name: "title", originalName: nil, options: [], valueType: String.self, defaultValue: nil, hashModifier: nil)
    described.defaultValue = ""
    described.hashModifier = nil
    described.isOptional = false
    described.originalName = "heading"
    described.name = "title"
    _ = Schema.Entity("Hand", properties: described)
    _ = Schema.Entity("Hand", subentities: Schema.Entity("Sub"), properties: described, relationship)
    let property: any SchemaProperty = described
    let _: [Bool] = [property.isAttribute, property.isOptional, property.isRelationship, property.isTransient, property.isUnique]
    let _: (String, String, Any.Type) = (property.name, property.originalName, property.valueType)
    let _: any Codable & Hashable & CustomDebugStringConvertible & Sendable = described
    let composite = Schema.CompositeAttribute(
        name: "place", originalName: nil, options: [], valueType: String.self, defaultValue: nil, hashModifier: nil)
    let _: [Schema.Attribute] = composite.properties
    let _: Schema.Attribute = composite
    let _: AnyKeyPath? = relationship.keypath
    let _: String = relationship.originalName
    let _: Bool = relationship.isOptional
    let _: Any.Type = relationship.valueType
    relationship.destination = "SigChild"
    relationship.inverseName = nil
    relationship.deleteRule = .nullify
    let _: any SchemaProperty & Codable & CustomDebugStringConvertible & Sendable = relationship
    let _: any Codable & Hashable & CustomDebugStringConvertible = Schema.Attribute.Option.unique
    let _: any Codable & Hashable & CustomDebugStringConvertible = Schema.Relationship.Option.unique
    _ = Schema.PropertyMetadata(name: "name", keypath: \Sig.name, defaultValue: nil, metadata: described)
    let index = Schema.Index<Sig>(.binary([\Sig.name]), .rtree([\Sig.count]))
    _ = Schema.Index<Sig>([\Sig.name], [\Sig.count])
    let _: [Schema.Index<Sig>.Types<Sig>] = index.indices
    let _: Schema.Index<Sig>.CodingKeys = .indices
    let _: any SchemaProperty & Codable & CustomDebugStringConvertible = index
    let unique = Schema.Unique<Sig>([\Sig.name, \Sig.count])
    let _: [[PartialKeyPath<Sig>]] = unique.constraints
    let _: Schema.Unique<Sig>.CodingKeys = .constraints
    let _: any SchemaProperty & Codable & CustomDebugStringConvertible = unique
    func relationshipCollection<C: RelationshipCollection>(_: C.Type) -> C.PersistentElement.Type { C.PersistentElement.self }
    let _: SigChild.Type = relationshipCollection([SigChild].self)
    func propertyUpdates<U: HistoryUpdate>(of update: U) -> [U.PropertyUpdate] { update.updatedAttributes }
    _ = propertyUpdates(of:) as (DefaultHistoryUpdate<Sig>) -> [DefaultHistoryUpdate<Sig>.PropertyUpdate]
    _ = Schema([SigPlace.self])

    // MARK: Migration
    let _: [MigrationStage] = [
        .lightweight(fromVersion: SigV1.self, toVersion: SigV1.self),
        .custom(fromVersion: SigV1.self, toVersion: SigV1.self, willMigrate: { _ in }, didMigrate: nil),
    ]
    let _: any Sendable = SigPlan.stages

    // MARK: SwiftDataError
    let _: [SwiftDataError] = [
        .includePendingChangesWithBatchSize, .sortingPendingChangesWithIdentifiers, .unsupportedKeyPath, .unsupportedPredicate,
        .unsupportedSortDescriptor, .configurationFileNameContainsInvalidCharacters, .configurationFileNameTooLong,
        .configurationSchemaNotFoundInContainerSchema, .duplicateConfiguration, .loadIssueModelContainer, .modelValidationFailure,
        .backwardMigration, .unknownSchema, .historyTokenExpired, .invalidTransactionFetchRequest, .unknownDataStoreSchema,
        .missingModelContext,
    ]
    let _: (SwiftDataError, any Error) -> Bool = (~=)

    // MARK: History
    var history = HistoryDescriptor<DefaultHistoryTransaction>(predicate: nil, sortBy: [])
    history.fetchLimit = UInt64(1)
    history.predicate = nil
    history.sortBy = [SortDescriptor(\.token)]
    let _: HistoryDescriptor<DefaultHistoryTransaction> = HistoryDescriptor(predicate: nil)
    for transaction in try context.fetchHistory(history) {
        let _: DefaultHistoryToken = transaction.token
        let _: String? = transaction.author
        let _: Date = transaction.timestamp
        let _: String = transaction.storeIdentifier
        let _: String = transaction.bundleIdentifier
        let _: String = transaction.processIdentifier
        let _: Int64 = transaction.transactionIdentifier
        for change in transaction.changes {
            switch change {
            case .insert(let insert): let _: PersistentIdentifier = insert.changedPersistentIdentifier
            case .update(let update):
                let _: PersistentIdentifier = update.changedPersistentIdentifier
                if let update = update as? DefaultHistoryUpdate<Sig> {
                    let _: Bool = update.containsAttribute(\Sig.name)
                    let _: [DefaultHistoryUpdate<Sig>.PropertyUpdate] = update.updatedAttributes
                }
            case .delete(let delete):
                let _: PersistentIdentifier = delete.changedPersistentIdentifier
                if let delete = delete as? DefaultHistoryDelete<Sig> {
                    var iterator: HistoryTombstone<Sig>.Iterator = delete.tombstone.makeIterator()
                    let _: Any? = iterator.next()
                }
            @unknown default: break
            }
        }
    }
    let token = DefaultHistoryToken.self
    let _: String.Type = String.self
    _ = token

    // MARK: Observers (iOS 27)
    let observer = try ResultsObserver<Sig, String>(sortBy: [SortDescriptor(\.name)], sectionBy: \.name, modelContext: context)
    let _: FetchResultsCollection<Sig> = observer.results
    let sections: SectionedResults<Sig, String>? = observer.sections
    let _: FetchDescriptor<Sig> = observer.fetchDescriptor
    let _: Predicate<Sig>? = observer.filterBy
    let _: [SortDescriptor<Sig>] = observer.sortBy
    let _: ModelContext = observer.modelContext
    let _: PartialKeyPath<Sig>? = observer.sectionBy
    let _: (IndexPath) -> Sig? = observer.element(at:)
    let _: (Sig) -> IndexPath? = observer.indexPath(for:)
    let _: String = observer.debugDescription
    if let sections {
        let _: Bool = sections.contains(sectionTitle: "a")
        let _: ResultsSection<Sig, String>? = sections[sectionTitle: "a"]
        let _: Int? = sections.index(ofSectionTitled: "a")
        let _: [String] = sections.sectionTitles
        let _: Bool = sections == sections
        if let first = sections.first {
            let _: String = first.title
            let _: String = first.id
            let _: Bool = first == first
        }
    }
    let historyObserver = try HistoryObserver(historyTokens: nil, observedModels: [Sig.self], authors: ["app"], modelContainer: container)
    let _: Int = historyObserver.eventCounter
    let _: Set<String> = historyObserver.authors
    let _: [any PersistentModel.Type] = historyObserver.observedModels
    let _: ModelContainer = historyObserver.modelContainer
}

func modelActorSignatures(_ container: ModelContainer) async {
    let actor = SigActor(modelContainer: container)
    let _: ModelContainer = actor.modelContainer
    let _: any ModelExecutor = actor.modelExecutor
    let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
    let _: ModelContext = executor.modelContext
    let _: UnownedSerialExecutor = executor.asUnownedSerialExecutor()
}

@Suite struct SwiftDataSignatureTests {
    @Test @MainActor func everyDeclarationThePackageHasIsAsAppleDeclaresIt() async throws {
        let container = try ModelContainer(for: Sig.self, SigChild.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Sig(name: "a"))
        try context.save()
        try swiftDataSignatures(context, container)
        try dataStoreSignatures(context)
        await modelActorSignatures(container)
        #expect(try context.fetchCount(FetchDescriptor<Sig>()) == 1)
    }
}

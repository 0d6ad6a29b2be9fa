import Foundation
import ModelKit
import ModelKitPostgres
import ModelKitSync
import Testing

// Three versions of an app's models. 2.0.0 renames `Card.title` to `heading`, adds `Card.stars`
// (default 3) and the model `Label`; 3.0.0 adds `Card.color`.

enum CardsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Card.self, Deck.self] }

    @Model final class Card {
        var title: String
        var body: String = ""
        var deck: Deck?
        init(title: String, body: String = "", deck: Deck? = nil) {
            self.title = title
            self.body = body
            self.deck = deck
        }
    }

    @Model final class Deck {
        var name: String
        @Relationship(inverse: \Card.deck) var cards: [Card] = []
        init(name: String) { self.name = name }
    }
}

enum CardsV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Card.self, Deck.self, Label.self] }

    @Model final class Card {
        @Attribute(originalName: "title") var heading: String
        var body: String = ""
        var stars: Int = 3
        var deck: Deck?
        var labels: [Label] = []
        init(heading: String, body: String = "", stars: Int = 3, deck: Deck? = nil) {
            self.heading = heading
            self.body = body
            self.stars = stars
            self.deck = deck
        }
    }

    @Model final class Deck {
        var name: String
        @Relationship(inverse: \Card.deck) var cards: [Card] = []
        init(name: String) { self.name = name }
    }

    @Model final class Label {
        var name: String
        @Relationship(inverse: \Card.labels) var cards: [Card] = []
        init(name: String) { self.name = name }
    }
}

enum CardsV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Card.self, Deck.self, Label.self] }

    @Model final class Card {
        @Attribute(originalName: "title") var heading: String
        var body: String = ""
        var stars: Int = 3
        var color: String = "white"
        var deck: Deck?
        var labels: [Label] = []
        init(heading: String) { self.heading = heading }
    }

    @Model final class Deck {
        var name: String
        @Relationship(inverse: \Card.deck) var cards: [Card] = []
        init(name: String) { self.name = name }
    }

    @Model final class Label {
        var name: String
        @Relationship(inverse: \Card.labels) var cards: [Card] = []
        init(name: String) { self.name = name }
    }
}

/// 2.0.0 with `Card.body` an integer: a type sync cannot carry from 1.0.0.
enum CardsV2Typed: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Card.self, Deck.self] }

    @Model final class Card {
        var title: String
        var body: Int = 0
        var deck: Deck?
        init(title: String) { self.title = title }
    }

    @Model final class Deck {
        var name: String
        @Relationship(inverse: \Card.deck) var cards: [Card] = []
        init(name: String) { self.name = name }
    }
}

/// Models on no version of the plans below, calling themselves 1.5.0.
enum StrayV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 5, 0)
    static var models: [any PersistentModel.Type] { [Card.self] }

    @Model final class Card {
        var title: String
        var size: Double = 0
        init(title: String) { self.title = title }
    }
}

/// The old app's plan: it knows 1.0.0 only.
enum CardsPlanV1: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CardsV1.self] }
    static var stages: [MigrationStage] { [] }
}

enum CardsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CardsV1.self, CardsV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: CardsV1.self, toVersion: CardsV2.self)] }
}

enum CardsPlanV3: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CardsV1.self, CardsV2.self, CardsV3.self] }
    static var stages: [MigrationStage] { [] }
}

enum StrayPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [StrayV1.self] }
    static var stages: [MigrationStage] { [] }
}

/// 1.0.0 → 2.0.0 with code of its own, which sync cannot replay for devices on 1.0.0.
enum CardsCustomPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CardsV1.self, CardsV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: CardsV1.self, toVersion: CardsV2.self, willMigrate: nil,
                didMigrate: { context in
                    for card in try context.fetch(FetchDescriptor<CardsV2.Card>()) { card.stars = card.body.count }
                    try context.save()
                })
        ]
    }
}

enum CardsTypedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CardsV1.self, CardsV2Typed.self] }
    static var stages: [MigrationStage] { [] }
}

/// A server on a plan's newest version, and devices each on a version of their own.
final class VersionWorld {
    let directory: URL
    let kind: ServerKind
    private let postgres: PostgresServer?
    let server: SyncServer
    private var count = 0

    init(
        _ kind: ServerKind, plan: any SchemaMigrationPlan.Type = CardsPlan.self, version: any VersionedSchema.Type = CardsV2.self,
        scopes: SyncScopes? = nil
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelKitSyncVersions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.kind = kind
        postgres = kind == .postgres ? PostgresServer() : nil
        let configuration: any DataStoreConfiguration =
            switch kind {
            case .sqlite: ModelConfiguration(url: directory.appendingPathComponent("server.store"))
            case .postgres: PostgresConfiguration(url: postgres!.url(instance: 1), connectTimeout: .seconds(30), pooledConnections: PostgresServer.connectionsEach)
            }
        let container = try ModelContainer(for: Schema(versionedSchema: version), migrationPlan: plan, configurations: [configuration])
        server = try scopes.map { try SyncServer(container: container, scopes: $0) { _ in "reader" } } ?? SyncServer(container: container)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A new device on `version` of `plan`.
    func device(_ version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)?) throws -> VersionDevice {
        count += 1
        return try VersionDevice(url: directory.appendingPathComponent("device\(count).store"), version: version, plan: plan, server: server)
    }
}

/// A device whose app is on one version of its models; ``update(to:plan:)`` installs a newer app.
final class VersionDevice {
    let url: URL
    let transport: RecordingTransport
    private(set) var container: ModelContainer
    private(set) var client: SyncClient
    private(set) var context: ModelContext

    init(url: URL, version: any VersionedSchema.Type, plan: (any SchemaMigrationPlan.Type)?, server: SyncServer) throws {
        self.url = url
        transport = RecordingTransport(server: server)
        (container, client, context) = try Self.open(url, version, plan, transport)
    }

    private static func open(
        _ url: URL, _ version: any VersionedSchema.Type, _ plan: (any SchemaMigrationPlan.Type)?, _ transport: RecordingTransport
    ) throws -> (ModelContainer, SyncClient, ModelContext) {
        let container = try ModelContainer(for: Schema(versionedSchema: version), migrationPlan: plan, configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        context.autosaveEnabled = false
        return (container, try SyncClient(container: container, transport: transport), context)
    }

    /// The app updated: its store is opened on `version`, migrated by `plan`.
    func update(to version: any VersionedSchema.Type, plan: any SchemaMigrationPlan.Type) throws {
        (container, client, context) = try Self.open(url, version, plan, transport)
    }

    @discardableResult
    func sync() async throws -> SyncReport { try await client.sync() }

    func all<T: PersistentModel>(_ type: T.Type) throws -> [T] {
        try ModelContext(container).fetch(FetchDescriptor<T>())
    }
}

/// The server, in process, with the pulls a device made and the pages it got.
final class RecordingTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private let lock = NSLock()
    private var _pulls: [(request: SyncPullRequest, response: SyncPullResponse)] = []

    init(server: SyncServer) { self.server = server }

    var pulls: [(request: SyncPullRequest, response: SyncPullResponse)] { lock.withLock { _pulls } }
    func forget() { lock.withLock { _pulls = [] } }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse { try await server.push(request) }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let response = try await server.pull(request)
        lock.withLock { _pulls.append((request, response)) }
        return response
    }
}

@Suite struct SyncVersionTests {
    /// The new device's deck "Work" with card "Plan" (5 stars, label "urgent"), synced to the server.
    private func seed(_ new: VersionDevice) async throws {
        let deck = CardsV2.Deck(name: "Work")
        new.context.insert(deck)
        let card = CardsV2.Card(heading: "Plan", body: "ship it", stars: 5, deck: deck)
        new.context.insert(card)
        card.labels = [CardsV2.Label(name: "urgent")]
        try new.context.save()
        try await new.sync()
    }

    @Test(arguments: ServerKind.available)
    func anOldDeviceReceivesRowsShapedForItsVersionAndANewDeviceReceivesEverything(_ kind: ServerKind) async throws {
        let world = try VersionWorld(kind)
        let new = try world.device(CardsV2.self, plan: CardsPlan.self)
        let old = try world.device(CardsV1.self, plan: CardsPlanV1.self)
        try await seed(new)

        let report = try await old.sync()
        #expect(report.pulled == 2)  // the card and its deck; no label
        let cards = try old.all(CardsV1.Card.self)
        #expect(cards.map(\.title) == ["Plan"])
        #expect(cards.first?.body == "ship it")
        #expect(cards.first?.deck?.name == "Work")
        // Every page the old device got holds its fields only, under its names.
        let sent = old.transport.pulls.flatMap(\.response.changes)
        #expect(Set(sent.map(\.entity)) == ["Card", "Deck"])
        #expect(Set(sent.filter { $0.entity == "Card" }.flatMap(\.fields.keys)) == ["title", "body", "deck"])

        let other = try world.device(CardsV2.self, plan: CardsPlan.self)
        try await other.sync()
        let full = try other.all(CardsV2.Card.self)
        #expect(full.map(\.heading) == ["Plan"])
        #expect(full.first?.stars == 5)
        #expect(full.first?.labels.map(\.name) == ["urgent"])
    }

    @Test(arguments: ServerKind.available)
    func anOldDevicesEditOfItsPropertyReachesTheNewDeviceAndKeepsTheValueItDoesNotKnow(_ kind: ServerKind) async throws {
        let world = try VersionWorld(kind)
        let new = try world.device(CardsV2.self, plan: CardsPlan.self)
        let old = try world.device(CardsV1.self, plan: CardsPlanV1.self)
        try await seed(new)
        try await old.sync()

        let card = try old.context.fetch(FetchDescriptor<CardsV1.Card>())[0]
        card.title = "Plan B"
        card.body = "ship it later"
        try old.context.save()
        let pushed = try await old.sync()
        #expect(pushed.pushed == 1)
        try await new.sync()

        let cards = try new.all(CardsV2.Card.self)
        #expect(cards.map(\.heading) == ["Plan B"])
        #expect(cards.first?.body == "ship it later")
        #expect(cards.first?.stars == 5)
        #expect(cards.first?.labels.map(\.name) == ["urgent"])
        let server = try ModelContext(world.server.container).fetch(FetchDescriptor<CardsV2.Card>())
        #expect(server.map(\.stars) == [5])
        #expect(server.map(\.heading) == ["Plan B"])
    }

    @Test(arguments: ServerKind.available)
    func aRowInsertedOnAnOldDeviceGetsTheCurrentModelsDefaultsForWhatItLacks(_ kind: ServerKind) async throws {
        let world = try VersionWorld(kind)
        let old = try world.device(CardsV1.self, plan: CardsPlanV1.self)
        let new = try world.device(CardsV2.self, plan: CardsPlan.self)
        old.context.insert(CardsV1.Card(title: "From the old app", body: "hello"))
        try old.context.save()
        try await old.sync()
        try await new.sync()

        let cards = try new.all(CardsV2.Card.self)
        #expect(cards.map(\.heading) == ["From the old app"])
        #expect(cards.first?.stars == 3)
        #expect(cards.first?.body == "hello")
        #expect(try ModelContext(world.server.container).fetch(FetchDescriptor<CardsV2.Card>()).map(\.stars) == [3])
    }

    @Test(arguments: ServerKind.available)
    func anOldDeviceWhoseStoreMigratesCatchesUpWithoutAFullDownloadAndKeepsItsPendingEdit(_ kind: ServerKind) async throws {
        let world = try VersionWorld(kind)
        let new = try world.device(CardsV2.self, plan: CardsPlan.self)
        let old = try world.device(CardsV1.self, plan: CardsPlanV1.self)
        try await seed(new)
        try await old.sync()
        let device = old.client.device

        // The card gets another star on the new device; then, later, an edit on the old app,
        // not yet synced, and the app updates. The edit's push must not carry the star count
        // the migration gave the old store, though it is newer than the new device's.
        let newCard = try new.context.fetch(FetchDescriptor<CardsV2.Card>())[0]
        newCard.stars = 4
        try new.context.save()
        try await new.sync()
        await wallClockMovesOn()
        let card = try old.context.fetch(FetchDescriptor<CardsV1.Card>())[0]
        card.body = "edited on the old app"
        try old.context.save()
        try old.update(to: CardsV2.self, plan: CardsPlan.self)
        #expect(old.client.device == device)

        old.transport.forget()
        try await old.sync()
        let pulls = old.transport.pulls
        #expect(pulls.first?.request.cursor?.hasSuffix("|v1.0.0") == true)
        #expect(!pulls.isEmpty && pulls.allSatisfy { !$0.response.isFullDownload })
        let cards = try old.all(CardsV2.Card.self)
        #expect(cards.map(\.heading) == ["Plan"])
        #expect(cards.first?.stars == 4)
        #expect(cards.first?.labels.map(\.name) == ["urgent"])
        #expect(cards.first?.body == "edited on the old app")
        #expect(try old.all(CardsV2.Label.self).count == 1)
        #expect(try old.all(CardsV2.Deck.self).count == 1)

        // The edit reached the server without touching what the old app did not know.
        try await new.sync()
        let server = try ModelContext(world.server.container).fetch(FetchDescriptor<CardsV2.Card>())
        #expect(server.map(\.body) == ["edited on the old app"])
        #expect(server.map(\.stars) == [4])
        #expect(try new.all(CardsV2.Card.self).map(\.body) == ["edited on the old app"])

        // From then on, it syncs as a device on 2.0.0.
        old.transport.forget()
        newCard.stars = 1
        try new.context.save()
        try await new.sync()
        let report = try await old.sync()
        #expect(report.pulled == 1)
        #expect(try old.all(CardsV2.Card.self).map(\.stars) == [1])
        #expect(old.transport.pulls.last?.response.cursor.hasSuffix("|v2.0.0") == true)
    }

    @Test(arguments: ServerKind.available)
    func aDeviceOnANewerVersionOrOutsideThePlanIsRefusedNamingBothVersionsAndNothingMoves(_ kind: ServerKind) async throws {
        let world = try VersionWorld(kind)
        let newer = try world.device(CardsV3.self, plan: CardsPlanV3.self)
        newer.context.insert(CardsV3.Card(heading: "From the future"))
        try newer.context.save()
        do {
            try await newer.sync()
            Issue.record("a device on 3.0.0 synced with a server on 2.0.0")
        } catch let error as SyncError {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("3.0.0") && error.message.contains("2.0.0"))
        }

        let stray = try world.device(StrayV1.self, plan: StrayPlan.self)
        stray.context.insert(StrayV1.Card(title: "Stray"))
        try stray.context.save()
        do {
            try await stray.sync()
            Issue.record("a device outside the plan synced")
        } catch let error as SyncError {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("1.5.0") && error.message.contains("2.0.0"))
        }
        #expect(try ModelContext(world.server.container).fetchCount(FetchDescriptor<CardsV2.Card>()) == 0)
        #expect(newer.transport.pulls.isEmpty && stray.transport.pulls.isEmpty)
    }

    @Test(arguments: ServerKind.available)
    func aServerWhosePlanHasACustomStageReportsTheVersionsBeforeItAndRefusesTheirDevices(_ kind: ServerKind) async throws {
        let world = try VersionWorld(kind, plan: CardsCustomPlan.self)
        let versions = world.server.versions
        #expect(versions.current == Schema.Version(2, 0, 0))
        #expect(versions.syncable == [Schema.Version(2, 0, 0)])
        let reason = try #require(versions.unsyncable[Schema.Version(1, 0, 0)])
        #expect(reason.contains("1.0.0 → 2.0.0") && reason.contains("custom"))

        let old = try world.device(CardsV1.self, plan: CardsPlanV1.self)
        old.context.insert(CardsV1.Card(title: "Old"))
        try old.context.save()
        do {
            try await old.sync()
            Issue.record("a device on a version before a custom stage synced")
        } catch let error as SyncError {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("1.0.0") && error.message.contains("2.0.0") && error.message.contains("custom"))
        }
        #expect(try ModelContext(world.server.container).fetchCount(FetchDescriptor<CardsV2.Card>()) == 0)
    }

    @Test func aServerWhosePlanChangesAPropertysTypeReportsTheVersionsBeforeIt() throws {
        let world = try VersionWorld(.sqlite, plan: CardsTypedPlan.self, version: CardsV2Typed.self)
        let reason = try #require(world.server.versions.unsyncable[Schema.Version(1, 0, 0)])
        #expect(reason.contains("Card.body"))
        #expect(world.server.versions.syncable == [Schema.Version(2, 0, 0)])
    }

    @Test func aServerOnALightweightPlanSyncsEveryVersionAndOneWithoutAPlanOnlyItsOwn() throws {
        let world = try VersionWorld(.sqlite)
        #expect(world.server.versions.syncable == [Schema.Version(1, 0, 0), Schema.Version(2, 0, 0)])
        #expect(world.server.versions.unsyncable.isEmpty)
        let plain = try SyncWorld()
        #expect(plain.server.versions.current == nil)
        #expect(plain.server.versions.syncable.isEmpty)
    }

    @Test func anEnvelopeOfADeviceThatPredatesVersionsStillDecodes() throws {
        let json = #"{"protocolVersion":1,"schema":"abc","device":"d","credentials":{}}"#
        let envelope = try JSONDecoder().decode(SyncEnvelope.self, from: Data(json.utf8))
        #expect(envelope.schemaVersion == nil && envelope.schema == "abc")
        let encoded = try JSONEncoder().encode(SyncEnvelope(schema: "abc", device: "d", schemaVersion: "1.0.0"))
        #expect(try JSONDecoder().decode(SyncEnvelope.self, from: encoded).schemaVersion == "1.0.0")
    }

    @Test(arguments: ServerKind.available)
    func anOldDeviceOnAScopedServerGetsItsRowsShapedForItsVersionAndCatchesUpWithinItsScope(_ kind: ServerKind) async throws {
        var scopes = SyncScopes()
        // Every user writes every card, and reads those that are not secret.
        scopes.set(
            CardsV2.Card.self, read: { _ in #Predicate<CardsV2.Card> { $0.body != "secret" } }, write: { _ in #Predicate<CardsV2.Card> { _ in true } })
        let world = try VersionWorld(kind, scopes: scopes)
        let new = try world.device(CardsV2.self, plan: CardsPlan.self)
        let old = try world.device(CardsV1.self, plan: CardsPlanV1.self)
        try await seed(new)
        new.context.insert(CardsV2.Card(heading: "Hidden", body: "secret", stars: 1))
        try new.context.save()
        try await new.sync()
        try await old.sync()
        #expect(try old.all(CardsV1.Card.self).map(\.title) == ["Plan"])

        try old.update(to: CardsV2.self, plan: CardsPlan.self)
        old.transport.forget()
        try await old.sync()
        #expect(old.transport.pulls.allSatisfy { !$0.response.isFullDownload })
        #expect(old.transport.pulls.first?.request.cursor != nil)
        let cards = try old.all(CardsV2.Card.self)
        #expect(cards.map(\.heading) == ["Plan"])
        #expect(cards.first?.stars == 5)
        // Leaving the scope still works after the update.
        let card = try new.context.fetch(FetchDescriptor<CardsV2.Card>(predicate: #Predicate { $0.heading == "Plan" }))[0]
        card.body = "secret"
        try new.context.save()
        try await new.sync()
        old.transport.forget()
        try await old.sync()
        #expect(try old.all(CardsV2.Card.self).isEmpty)
    }
}

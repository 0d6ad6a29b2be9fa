import Foundation

/// Brings a store to the newest version of a ``SchemaMigrationPlan``, inside the writer's turn:
/// finds the store's version (recorded, or matched by shape), then runs every stage from there,
/// in order, in one transaction. A failing stage rolls everything back. A plan that would go
/// back to an earlier version is refused before the store is touched, as SwiftData refuses it.
struct PlanMigration {
    let plan: any SchemaMigrationPlan.Type
    /// The container's own schema: the newest version's models, as the app uses them.
    let schema: Schema
    let url: URL
    let access: StoreAccess
    let writer: Connection

    private var migrator: Migrator { Migrator(connection: writer) }

    /// Returns the store's identifier.
    func run() throws -> String {
        let versions = plan.schemas
        guard let newest = versions.last else { return try migrator.migrate(schema) }
        try refuseBackwardStages()
        guard try migrator.hasModelKitTables() else {
            // A new store: made at the newest version, with nothing to migrate.
            return try writer.transaction {
                let identifier = try migrator.migrate(schema)
                try migrator.setStoredValue("version", newest.versionIdentifier.description)
                return identifier
            }
        }
        let start = try storeVersionIndex(in: versions)
        // A container on an earlier version than the store's would reshape its tables back
        // without any stage, and record the later version over them.
        if let target = versions.lastIndex(where: { Schema(versionedSchema: $0).fingerprint == schema.fingerprint }), target < start {
            throw ModelKitError.backwardMigration(from: versions[start].versionIdentifier.description, to: versions[target].versionIdentifier.description)
        }
        if start == versions.count - 1, try migrator.storedValue("version") == newest.versionIdentifier.description {
            return try migrator.migrate(schema)
        }
        return try writer.transaction {
            for index in start..<(versions.count - 1) {
                try run(from: versions[index], to: versions[index + 1])
            }
            let identifier = try migrator.migrate(schema)
            try migrator.setStoredValue("version", newest.versionIdentifier.description)
            return identifier
        }
    }

    /// Refuses a stage whose `toVersion` is older than its `fromVersion`: migration walks the
    /// plan's versions forward, so such a stage would never run.
    private func refuseBackwardStages() throws {
        for stage in plan.stages {
            let (from, to) = (stage.fromVersion.versionIdentifier, stage.toVersion.versionIdentifier)
            if to < from { throw ModelKitError.backwardMigration(from: from.description, to: to.description) }
        }
    }

    /// The index in `versions` of the store's version: the one it records, or else the one whose
    /// schema it was last migrated to (its fingerprint, which counts unique constraints and
    /// indexes), or else the newest whose shape it has.
    private func storeVersionIndex(in versions: [any VersionedSchema.Type]) throws -> Int {
        if let recorded = try migrator.storedValue("version") {
            if let index = versions.firstIndex(where: { $0.versionIdentifier.description == recorded }) { return index }
            if let version = Schema.Version(recorded), let newest = versions.last, version > newest.versionIdentifier {
                throw ModelKitError.unknownStoreVersion(recorded, reason: "is newer than every version of \(plan)")
            }
            throw ModelKitError.unknownStoreVersion(recorded, reason: "records a version \(plan) does not list")
        }
        if let fingerprint = try migrator.storedValue("fingerprint"),
            let index = versions.lastIndex(where: { Schema(versionedSchema: $0).fingerprint == fingerprint })
        {
            return index
        }
        for index in versions.indices.reversed() where try migrator.matchesShape(of: Schema(versionedSchema: versions[index])) {
            return index
        }
        throw ModelKitError.unknownStoreVersion("unrecorded", reason: "has a shape that matches no version of \(plan)")
    }

    /// One stage: `willMigrate` on the old models, the lightweight step, `didMigrate` on the new.
    private func run(from: any VersionedSchema.Type, to: any VersionedSchema.Type) throws {
        let name = "\(from.versionIdentifier) → \(to.versionIdentifier)"
        let stage = plan.stages.first { stage in
            ObjectIdentifier(stage.fromVersion) == ObjectIdentifier(from) && ObjectIdentifier(stage.toVersion) == ObjectIdentifier(to)
        } ?? .lightweight(fromVersion: from, toVersion: to)
        do {
            if case .custom(_, _, let willMigrate?, _) = stage {
                try withContext(on: Schema(versionedSchema: from), willMigrate)
            }
            _ = try migrator.migrate(Schema(versionedSchema: to))
            if case .custom(_, _, _, let didMigrate?) = stage {
                try withContext(on: Schema(versionedSchema: to), didMigrate)
            }
        } catch {
            throw ModelKitError.migrationFailed(stage: name, underlying: error)
        }
    }

    /// Calls `body` with a context on `schema`'s models that reads and writes inside the
    /// migration's transaction, then saves what it left unsaved.
    private func withContext(on schema: Schema, _ body: (ModelContext) throws -> Void) throws {
        let identifier = try migrator.storedValue("identifier") ?? ""
        let store = Store(migratingAt: url, identifier: identifier, access: access, through: writer)
        let context = ModelContext(ModelContainer(migrating: schema, store: store))
        try body(context)
        try context.save()
    }
}

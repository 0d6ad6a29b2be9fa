import Foundation

/// What can go wrong opening a store, migrating it, or reading and writing models.
public enum ModelKitError: Error, CustomStringConvertible {
    /// The file at the URL is not a SQLite database, or is damaged beyond reading.
    case notADatabase(URL, DatabaseError)
    /// The file is a SQLite database that another program made: ModelKit leaves it untouched.
    case notAModelKitStore(URL, tables: [String])
    /// The store could not be opened or created, for example because its directory is not writable.
    case cannotOpenStore(URL, reason: String)
    /// The model changed in a way automatic migration cannot apply without losing data.
    case incompatibleSchemaChange(entity: String, property: String, reason: String)
    /// A persisted property has a type ModelKit cannot store.
    case unsupportedPropertyType(entity: String, property: String, type: String)
    /// The model's declaration cannot be stored as written, for example an index on a property
    /// that is not persisted.
    case invalidSchema(entity: String, reason: String)
    /// A configuration's name cannot name a store file in the data directory, for example because
    /// it contains `/` or starts with `..`.
    case invalidConfigurationName(String, reason: String)
    /// Two of a container's configurations name the same store (the same name, or the same file).
    case duplicateConfiguration(String)
    /// A configuration's schema has a model type that the container's schema does not.
    case configurationSchemaNotInContainer(configuration: String, entity: String)
    /// The container's configurations cannot hold its models as given: none of them holds one of
    /// its model types, a migration plan is given for several stores, or a transaction's changes
    /// span stores, which commit separately.
    case invalidConfiguration(String, reason: String)
    /// A stage of a migration plan failed. The whole migration was rolled back: the store is as
    /// it was, and the old version's models still read it.
    case migrationFailed(stage: String, underlying: any Error)
    /// The store's version is not one the migration plan knows: newer than every version, or a
    /// shape that matches none. The store was left untouched.
    case unknownStoreVersion(String, reason: String)
    /// The migration would go from a later schema version back to an earlier one: a stage whose
    /// `toVersion` is older than its `fromVersion`, or a container whose schema is an older
    /// version of the plan than the store's. SwiftData refuses these too
    /// (`SwiftDataError.backwardMigration`); the store was left untouched.
    case backwardMigration(from: String, to: String)
    /// The model type is not in the container's schema.
    case modelNotInSchema(String)
    /// `save()` was called on a container configured with `allowsSave: false`.
    case saveNotAllowed(URL)
    /// A model was deleted while its relationship with the `.deny` rule still had related models.
    case deleteDenied(entity: String, relationship: String)
    /// A delete would leave a required (non-optional) to-one pointing at nothing: `.nullify`
    /// cannot clear it. Nothing was saved.
    case requiredRelationshipWouldBeNil(entity: String, relationship: String)
    /// A stored value cannot be read as the property's type.
    case storedValueMismatch(entity: String, property: String, expected: String, found: String)
    /// A fetch descriptor (or `enumerate`'s batch size) holds a value no fetch can use, such as a
    /// negative limit or offset.
    case invalidFetchDescriptor(String)
    /// An identifier cannot be made from the given parts (see
    /// ``PersistentIdentifier/identifier(for:entityName:primaryKey:)``).
    case invalidIdentifier(String, reason: String)
    /// A string or data value is longer than the database can store (1,000,000,000 bytes by
    /// default in SQLite, 1 GB in PostgreSQL). Nothing was written.
    case valueTooLarge(DatabaseError)
    /// A property's value cannot be made into what the store keeps, such as a value its value
    /// transformer does not turn into `Data`. Nothing was written. (A value the database cannot
    /// hold is ``DatabaseError/Code/unsupportedValue``.)
    case valueNotStorable(entity: String, property: String, reason: String)
    /// Another process held the store's lock for longer than the busy timeout (5 seconds).
    case storeLocked(URL)
    /// A save changed or deleted models whose rows another context or process had deleted. The
    /// save wrote nothing, and the context keeps its changes.
    case saveConflict(entity: String, identifiers: [PersistentIdentifier])
    /// A history fetch resumes from a token older than transactions that
    /// ``ModelContext/deleteHistory(_:)`` (or `deleteAllData()`) removed: changes since the token
    /// are no longer all known. Start over from the current data, and keep the newest token.
    case historyTokenExpired(DefaultHistoryToken)
    /// A history predicate holds a token of another store, which says nothing about this one's
    /// history.
    case historyTokenOfAnotherStore(DefaultHistoryToken, storeIdentifier: String)
    /// The store's database refused an operation, for example a constraint failure, or failed,
    /// for example when its connection dropped: the same codes from SQLite and PostgreSQL (see
    /// ``DatabaseError``).
    case database(DatabaseError)

    public var description: String {
        switch self {
        case .notADatabase(let url, let error):
            "The store at \(url.path) is not a readable SQLite database (\(error)). "
                + "Move the file aside, or point the ModelConfiguration at another URL."
        case .notAModelKitStore(let url, let tables):
            "The file at \(url.path) is a SQLite database that ModelKit did not make (tables: "
                + "\(tables.prefix(5).joined(separator: ", "))\(tables.count > 5 ? ", …" : "")). It was left untouched; "
                + "point the ModelConfiguration at another URL."
        case .cannotOpenStore(let url, let reason):
            "Cannot open the store at \(url.path): \(reason). Check that its directory exists and is writable."
        case .incompatibleSchemaChange(let entity, let property, let reason):
            "\(entity).\(property): \(reason). The store was left untouched; "
                + "make the property optional or give it a default, or migrate the data yourself."
        case .unsupportedPropertyType(let entity, let property, let type):
            "\(entity).\(property) has type \(type), which ModelKit cannot store. Use a primitive, "
                + "a RawRepresentable enum, a Codable value, or mark the property @Transient."
        case .invalidSchema(let entity, let reason):
            "\(entity): \(reason)."
        case .invalidConfigurationName(let name, let reason):
            "The configuration name \"\(name)\" cannot name a store file: \(reason). Use a plain name such as \"Notes\", "
                + "or ModelConfiguration(url:) for a store elsewhere."
        case .duplicateConfiguration(let name):
            "Two configurations name the store \"\(name)\". Give each configuration its own name and file."
        case .configurationSchemaNotInContainer(let configuration, let entity):
            "The configuration \"\(configuration)\" has \(entity), which the container's schema does not. "
                + "Add \(entity).self to the ModelContainer's types, or remove it from the configuration's schema."
        case .invalidConfiguration(let name, let reason):
            "The configuration \"\(name)\" cannot be used: \(reason)."
        case .migrationFailed(let stage, let underlying):
            "Migration stage \(stage) failed: \(underlying). The store was left as it was."
        case .unknownStoreVersion(let version, let reason):
            "The store (version \(version)) \(reason). It was left untouched; open it with the app version that wrote it."
        case .backwardMigration(let from, let to):
            "Migrating from version \(from) back to \(to) is not supported. The store was left untouched; "
                + "to go back, make a new version whose models have the earlier shape and migrate forward to it."
        case .modelNotInSchema(let name):
            "\(name) is not in the container's schema. Add \(name).self to the ModelContainer's types."
        case .saveNotAllowed(let url):
            "The container for \(url.path) was configured with allowsSave: false, so save() cannot write."
        case .deleteDenied(let entity, let relationship):
            "Cannot delete a \(entity) while its \(relationship) has related models (delete rule .deny). "
                + "Nothing was saved; remove the related models first."
        case .requiredRelationshipWouldBeNil(let entity, let relationship):
            "Cannot delete: \(entity).\(relationship) is required, and it would point at the deleted model. "
                + "Nothing was saved; delete or repoint those \(entity) models first, or make \(relationship) optional."
        case .storedValueMismatch(let entity, let property, let expected, let found):
            "\(entity).\(property) holds \(found), which is not a valid \(expected)."
        case .invalidFetchDescriptor(let reason):
            "Invalid fetch: \(reason)."
        case .invalidIdentifier(let identifier, let reason):
            "\(identifier) is not a persistent identifier: \(reason)."
        case .valueTooLarge(let error):
            "A string or data value is longer than the database can store (\(error.message)). Nothing was written; "
                + "keep large data in files and store their URLs."
        case .valueNotStorable(let entity, let property, let reason):
            "\(entity).\(property) holds a value the store cannot keep: \(reason). Nothing was written."
        case .storeLocked(let url):
            "The store at \(url.path) is locked by another process, which held it longer than the busy timeout. "
                + "Nothing was written; try again later."
        case .saveConflict(let entity, let identifiers):
            "Cannot save: another context or process deleted \(identifiers.count) \(entity) row(s) this save changes or "
                + "deletes (\(identifiers.prefix(5).map(\.description).joined(separator: ", "))\(identifiers.count > 5 ? ", …" : "")). "
                + "Nothing was written and the context keeps its changes; call rollback() or delete those models."
        case .historyTokenExpired(let token):
            "The history after token \(token) was partly deleted, so the changes since it are not all known. "
                + "Read the current data again, and resume from the newest token."
        case .historyTokenOfAnotherStore(let token, let storeIdentifier):
            "The history token \(token) belongs to another store than this one (\(storeIdentifier)). "
                + "Keep one token per store."
        case .database(let error):
            error.description
        }
    }
}

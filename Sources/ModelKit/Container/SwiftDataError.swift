/// SwiftData's error type, with Apple's names, so that `catch let error as SwiftDataError` works
/// as it does with SwiftData. Where ModelKit meets the same failure, it throws one of these,
/// carrying its own detailed ``ModelKitError`` in ``underlying``:
///
/// | ModelKit's failure | thrown as |
/// |---|---|
/// | a container cannot open, create or migrate its store (`notADatabase`, `notAModelKitStore`, `cannotOpenStore`, `storeLocked`, `incompatibleSchemaChange`, `migrationFailed`, `invalidSchema`, `unsupportedPropertyType`, `database`) | ``loadIssueModelContainer`` |
/// | the store is newer than every version of the migration plan | ``backwardMigration`` |
/// | the store matches no version of the migration plan | ``unknownSchema`` |
/// | a configuration name that cannot name a file | ``configurationFileNameContainsInvalidCharacters`` |
/// | a history fetch resumes from an expired token | ``historyTokenExpired`` |
/// | `sum(of:)` of a key path that is not a persisted property | ``unsupportedKeyPath`` |
///
/// ```swift
/// do {
///     container = try ModelContainer(for: Note.self)
/// } catch let error as SwiftDataError where error == .loadIssueModelContainer {   // or `catch SwiftDataError.loadIssueModelContainer`
///     print(error.underlying ?? error)   // the ModelKitError, naming the file and the cause
/// }
/// ```
public struct SwiftDataError: Error, Hashable, @unchecked Sendable, CustomStringConvertible {
    private let code: String
    /// The ModelKit error behind this one, with its details; nil for the bare static values.
    /// Not part of equality: errors compare by kind, as SwiftData's do.
    public let underlying: ModelKitError?

    private init(_ code: String, underlying: ModelKitError? = nil) {
        self.code = code
        self.underlying = underlying
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        guard let underlying else { return "SwiftDataError.\(code)" }
        return "SwiftDataError.\(code): \(underlying)"
    }

    /// This kind of error, carrying `error`.
    func carrying(_ error: ModelKitError) -> SwiftDataError {
        SwiftDataError(code, underlying: error)
    }

    // MARK: Containers and configurations

    /// The container could not load its store.
    public static let loadIssueModelContainer = SwiftDataError("loadIssueModelContainer")
    /// The store is at a newer version than the migration plan knows.
    public static let backwardMigration = SwiftDataError("backwardMigration")
    /// The store's schema is not one the migration plan knows.
    public static let unknownSchema = SwiftDataError("unknownSchema")
    /// The data store's schema is not recognized.
    public static let unknownDataStoreSchema = SwiftDataError("unknownDataStoreSchema")
    /// A configuration names a schema the container's schema does not include.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError("configurationSchemaNotFoundInContainerSchema")
    /// Two configurations describe the same store.
    public static let duplicateConfiguration = SwiftDataError("duplicateConfiguration")
    /// A configuration's file name is too long.
    public static let configurationFileNameTooLong = SwiftDataError("configurationFileNameTooLong")
    /// A configuration's name cannot name a file.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError("configurationFileNameContainsInvalidCharacters")
    /// A model failed validation.
    public static let modelValidationFailure = SwiftDataError("modelValidationFailure")

    // MARK: Fetches

    /// A fetch with a batch size cannot include pending changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError("includePendingChangesWithBatchSize")
    /// A fetch of identifiers cannot sort pending changes.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError("sortingPendingChangesWithIdentifiers")
    /// A key path that is not a persisted property.
    public static let unsupportedKeyPath = SwiftDataError("unsupportedKeyPath")
    /// A predicate the store cannot evaluate.
    public static let unsupportedPredicate = SwiftDataError("unsupportedPredicate")
    /// A sort descriptor the store cannot apply.
    public static let unsupportedSortDescriptor = SwiftDataError("unsupportedSortDescriptor")

    // MARK: History

    /// A history fetch resumes from a token older than deleted history.
    public static let historyTokenExpired = SwiftDataError("historyTokenExpired")
    /// A history fetch request the store cannot run.
    public static let invalidTransactionFetchRequest = SwiftDataError("invalidTransactionFetchRequest")

    // MARK: Models

    /// An operation needs the model to be in a context, and it is in none.
    public static let missingModelContext = SwiftDataError("missingModelContext")

    // MARK: Matching

    /// Whether `error` is a SwiftDataError of this kind, so that `catch` patterns work as in
    /// SwiftData:
    ///
    /// ```swift
    /// do { container = try ModelContainer(for: Note.self) }
    /// catch SwiftDataError.loadIssueModelContainer { … }
    /// ```
    public static func ~= (lhs: SwiftDataError, rhs: any Error) -> Bool {
        (rhs as? SwiftDataError) == lhs
    }
}

extension ModelKitError {
    /// The SwiftData error a container's initializer throws for this failure.
    var asContainerError: SwiftDataError {
        switch self {
        case .unknownStoreVersion(_, let reason) where reason.hasPrefix("is newer"): SwiftDataError.backwardMigration.carrying(self)
        case .unknownStoreVersion: SwiftDataError.unknownSchema.carrying(self)
        case .backwardMigration: SwiftDataError.backwardMigration.carrying(self)
        case .invalidConfigurationName: SwiftDataError.configurationFileNameContainsInvalidCharacters.carrying(self)
        case .duplicateConfiguration: SwiftDataError.duplicateConfiguration.carrying(self)
        case .configurationSchemaNotInContainer: SwiftDataError.configurationSchemaNotFoundInContainerSchema.carrying(self)
        default: SwiftDataError.loadIssueModelContainer.carrying(self)
        }
    }
}

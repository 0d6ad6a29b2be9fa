import Foundation

/// Where and how a ``ModelContainer`` stores its models.
///
/// ```swift
/// ModelConfiguration(isStoredInMemoryOnly: true)             // tests and previews
/// ModelConfiguration(url: URL(fileURLWithPath: "todo.store"))  // a file of your choosing
/// ModelConfiguration("Notes")                                 // <data dir>/<program>/Notes.store
/// ```
public struct ModelConfiguration: Sendable, Identifiable, Hashable, CustomDebugStringConvertible {
    /// The configuration's name; also the default store's file name.
    public let name: String
    /// The store file. `/dev/null` for in-memory stores, as in SwiftData.
    public let url: URL
    /// Whether the store lives in memory only, and vanishes with its container.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save. When false, `save()` throws ``ModelKitError/saveNotAllowed(_:)``.
    public let allowsSave: Bool
    /// The model types this configuration stores, if it names them.
    public var schema: Schema?

    /// Whether saves record history (see ``ModelContext/fetchHistory(_:)``). On, as in SwiftData;
    /// the benchmark turns it off to measure what history costs.
    @_spi(Benchmarks) public var recordsHistory = true

    /// The app group option the configuration was made with. Read back as given; off Apple
    /// platforms there are no app groups, so it never moves the store.
    public let groupContainer: GroupContainer
    /// The CloudKit option the configuration was made with. Read back as given; off Apple
    /// platforms CloudKit never syncs (see `ModelKitSync` for sync without it).
    public let cloudKitDatabase: CloudKitDatabase

    /// The app group named by ``groupContainer``, if it names one. `.automatic` resolves to the
    /// app's entitlement on Apple platforms; there is none elsewhere, so it is nil.
    public var groupAppContainerIdentifier: String? {
        groupContainer == .automatic ? nil : groupContainer.value
    }

    /// The CloudKit container named by ``cloudKitDatabase``, if it names one. `.automatic`
    /// resolves to the app's entitlement on Apple platforms; there is none elsewhere, so it is nil.
    public var cloudKitContainerIdentifier: String? {
        cloudKitDatabase == .automatic ? nil : cloudKitDatabase.value
    }

    /// Identifiable conformance: the store's ``url``, as in SwiftData.
    public var id: URL { url }

    /// The configuration's name, store and options, for debugging.
    public var debugDescription: String {
        "ModelConfiguration(name: \(name), url: \(url.path), isStoredInMemoryOnly: \(isStoredInMemoryOnly), "
            + "allowsSave: \(allowsSave), groupContainer: \(groupContainer.value ?? "none"), "
            + "cloudKitDatabase: \(cloudKitDatabase.value ?? "none"))"
    }

    /// Checks that the configuration can name a store, as a container will when it opens it.
    ///
    /// - Throws: ``ModelKitError/invalidConfigurationName(_:reason:)`` when the name cannot name a
    ///   file in the data directory.
    public func validate() throws {
        if let invalidNameReason { throw ModelKitError.invalidConfigurationName(name, reason: invalidNameReason) }
    }

    /// A configuration with the default store location, or in memory.
    ///
    /// The name must be a plain file name: a container refuses one with a path separator or that
    /// starts with `..`, throwing ``ModelKitError/invalidConfigurationName(_:reason:)``.
    ///
    /// The default store is `<data dir>/<program name>/<name>.store`, where the data directory is
    /// `FileManager`'s application support directory (`$XDG_DATA_HOME`, or `~/.local/share`, on
    /// Linux). Apple platforms sandbox each app's directory; on Linux the program's name keeps two
    /// programs from sharing one store.
    ///
    /// `groupContainer` and `cloudKitDatabase` are kept and read back, as SwiftData's, and have no
    /// effect here: there are no app groups or CloudKit off Apple platforms.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : Self.defaultDirectory.appendingPathComponent("\(name).store")
        invalidNameReason = isStoredInMemoryOnly ? nil : Self.problem(withFileName: name)
    }

    /// Why the name cannot name a store file in the data directory, if it cannot. A container
    /// refuses such a configuration rather than write outside the data directory.
    let invalidNameReason: String?

    private static func problem(withFileName name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.contains("/") || name.contains("\\") { return "it contains a path separator" }
        if name == "." || name == ".." || name.hasPrefix("..") { return "it would name a file outside the data directory" }
        if name.contains("\0") { return "it contains a NUL character" }
        return nil
    }

    /// A configuration whose store is the file at `url`.
    ///
    /// `cloudKitDatabase` is kept and read back, as SwiftData's, and has no effect here.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true, cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
        self.url = url
        invalidNameReason = nil
    }

    /// The default store, or one in memory.
    public init(isStoredInMemoryOnly: Bool = false) {
        self.init(nil, schema: nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration for the given model types, in the default store or in memory.
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// Configurations are equal when they describe the same store the same way (and name the
    /// same schema object, if any).
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.schema === rhs.schema
            && lhs.groupContainer == rhs.groupContainer && lhs.cloudKitDatabase == rhs.cloudKitDatabase
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(isStoredInMemoryOnly)
        hasher.combine(allowsSave)
    }

    /// An app group whose container holds the store, as in SwiftData. No effect off Apple
    /// platforms.
    public struct GroupContainer: Sendable, Hashable {
        let value: String?
        /// The app's group container, if it has one.
        public static let automatic = GroupContainer(value: "automatic")
        /// No group container.
        public static let none = GroupContainer(value: nil)
        /// The group container with `groupName`.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(value: groupName) }
    }

    /// The CloudKit database the store syncs with, as in SwiftData. No effect off Apple platforms.
    public struct CloudKitDatabase: Sendable, Hashable {
        let value: String?
        /// The app's CloudKit container, if it has one.
        public static let automatic = CloudKitDatabase(value: "automatic")
        /// No syncing.
        public static let none = CloudKitDatabase(value: nil)
        /// The private database of the CloudKit container `containerIdentifier`.
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase {
            CloudKitDatabase(value: containerIdentifier)
        }
    }

    /// `<application support>/<program name>`, where default stores live.
    static var defaultDirectory: URL {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #if canImport(Darwin)
        return support
        #else
        return support.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
        #endif
    }
}

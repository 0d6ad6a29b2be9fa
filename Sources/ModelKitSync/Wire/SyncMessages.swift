import Foundation

/// One row's change: its entity, its global identifier, and either its deletion or its fields.
public struct SyncChange: Sendable, Codable, Equatable {
    /// The row's model class name (its own class, in a class hierarchy).
    public var entity: String
    /// The row's global identifier, the same on every device and on the server.
    public var id: String
    /// Whether the row is deleted: a tombstone, with no fields.
    public var deleted: Bool
    /// The row's fields by property name. In a push, the changed ones; from the server, all.
    public var fields: [String: SyncField]
    /// From a server with scopes: the row left what the device's user reads. The device removes
    /// its copy; nothing is deleted, and the row comes back if the user reads it again.
    public var leftScope: Bool

    public init(entity: String, id: String, deleted: Bool = false, fields: [String: SyncField] = [:], leftScope: Bool = false) {
        self.entity = entity
        self.id = id
        self.deleted = deleted
        self.fields = fields
        self.leftScope = leftScope
    }

    private enum CodingKeys: String, CodingKey {
        case entity, id, deleted, fields, leftScope
    }

    /// `leftScope` is written only when set, and read as false when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entity = try container.decode(String.self, forKey: .entity)
        id = try container.decode(String.self, forKey: .id)
        deleted = try container.decode(Bool.self, forKey: .deleted)
        fields = try container.decode([String: SyncField].self, forKey: .fields)
        leftScope = try container.decodeIfPresent(Bool.self, forKey: .leftScope) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entity, forKey: .entity)
        try container.encode(id, forKey: .id)
        try container.encode(deleted, forKey: .deleted)
        try container.encode(fields, forKey: .fields)
        if leftScope { try container.encode(true, forKey: .leftScope) }
    }
}

/// One property of a ``SyncChange``.
public struct SyncField: Sendable, Codable, Equatable {
    /// The value: in a push, the device's; from the server, the resolved one.
    public var value: SyncValue
    /// The hybrid logical clock of the edit that set the value (see ``HybridLogicalClock``).
    public var clock: String
    /// In a push: what the device last had from the server for this property; absent if never.
    public var base: SyncValue?
    /// In a push of a to-many: the identifiers the device added since ``base``.
    public var added: [String]?
    /// In a push of a to-many: the identifiers the device removed since ``base``.
    public var removed: [String]?

    public init(value: SyncValue, clock: String, base: SyncValue? = nil, added: [String]? = nil, removed: [String]? = nil) {
        self.value = value
        self.clock = clock
        self.base = base
        self.added = added
        self.removed = removed
    }

    /// The wire form: an array, `[value, clock]`, then `base`, `added` and `removed` when a push
    /// has them (`null` for one absent before a present one).
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        value = try container.decode(SyncValue.self)
        clock = try container.decode(String.self)
        base = container.isAtEnd ? nil : try container.decodeNil() ? nil : try container.decode(SyncValue.self)
        added = container.isAtEnd ? nil : try container.decodeNil() ? nil : try container.decode([String].self)
        removed = container.isAtEnd ? nil : try container.decodeNil() ? nil : try container.decode([String].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(value)
        try container.encode(clock)
        guard base != nil || added != nil || removed != nil else { return }
        if let base { try container.encode(base) } else { try container.encodeNil() }
        guard added != nil || removed != nil else { return }
        if let added { try container.encode(added) } else { try container.encodeNil() }
        if let removed { try container.encode(removed) } else { try container.encodeNil() }
    }
}

/// What a device asks of the server, besides its changes or its cursor: who it is, its schema,
/// and the credentials the server's authorization hook reads.
public struct SyncEnvelope: Sendable, Codable, Equatable {
    /// The wire format's version; a server refuses versions it does not speak.
    public var protocolVersion: Int
    /// The device's schema digest; the server refuses a request whose schema is not its own.
    public var schema: String
    /// The device's identifier, made once and kept in its store.
    public var device: String
    /// Credentials for the server's authorization hook; the HTTP handler adds the request's
    /// headers here, lowercased.
    public var credentials: [String: String]
    /// The device's version of its app's models (`1.2.0`): its migration plan's version whose
    /// models its container has; nil without a plan. A server with a plan syncs devices on its
    /// version and older ones (see ``SyncVersions``), and names this one when it refuses a device.
    /// Absent in requests of devices that predate it.
    public var schemaVersion: String?

    public static let currentProtocolVersion = 1

    public init(
        schema: String, device: String, credentials: [String: String] = [:], protocolVersion: Int = Self.currentProtocolVersion,
        schemaVersion: String? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.schema = schema
        self.device = device
        self.credentials = credentials
        self.schemaVersion = schemaVersion
    }
}

/// A device's local changes, sent once and applied once: a push retried with the same ``id``
/// (its response was lost) gets the first answer again.
public struct SyncPushRequest: Sendable, Codable, Equatable {
    public var envelope: SyncEnvelope
    /// The push's identifier, unique per device.
    public var id: String
    /// The changed rows, in the order they were changed.
    public var changes: [SyncChange]

    public init(envelope: SyncEnvelope, id: String, changes: [SyncChange]) {
        self.envelope = envelope
        self.id = id
        self.changes = changes
    }
}

/// The server's answer to a push.
public struct SyncPushResponse: Sendable, Codable, Equatable {
    /// How many pushed changes the server took (a change to a deleted row is not taken).
    public var accepted: Int
    /// How many pushed fields met a concurrent change and were resolved by a rule.
    public var conflicts: Int
    /// The server's state of each pushed row after the push: all its fields, or its tombstone.
    public var rows: [SyncChange]
    /// Pushed identifiers the server merged into another row (a unique attribute's value was
    /// already stored): pushed identifier to the row's identifier.
    public var merged: [String: String]
    /// Pushed row changes the server refused; ``rows`` has the server's state of each.
    public var rejections: [SyncRejection]

    public init(accepted: Int, conflicts: Int, rows: [SyncChange], merged: [String: String], rejections: [SyncRejection] = []) {
        self.accepted = accepted
        self.conflicts = conflicts
        self.rows = rows
        self.merged = merged
        self.rejections = rejections
    }

    private enum CodingKeys: String, CodingKey {
        case accepted, conflicts, rows, merged, rejections
    }

    /// Answers stored before rejections existed have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accepted = try container.decode(Int.self, forKey: .accepted)
        conflicts = try container.decode(Int.self, forKey: .conflicts)
        rows = try container.decode([SyncChange].self, forKey: .rows)
        merged = try container.decode([String: String].self, forKey: .merged)
        rejections = try container.decodeIfPresent([SyncRejection].self, forKey: .rejections) ?? []
    }
}

/// A device's request for the server's changes after its cursor.
public struct SyncPullRequest: Sendable, Codable, Equatable {
    public var envelope: SyncEnvelope
    /// Where the device's last pull ended; nil for everything (a full download).
    public var cursor: String?
    /// The most rows one response carries.
    public var limit: Int
    /// How long, in seconds, the server may hold the request when it has nothing after the
    /// cursor: it answers as soon as new changes arrive, or empty when the wait ends (a long
    /// poll; ``SyncServer`` holds one a minute at most). Nil or 0: it answers at once. Absent in
    /// requests of devices that predate it, and ignored by servers that do: a transport says
    /// whether its server waits with ``SyncTransport/supportsWaiting``. (The synthesized
    /// `Codable` writes it only when set and reads a request without it as nil.)
    public var wait: Double?
    /// Whether the page lists the rows of the device's own pushes too, which pages otherwise
    /// leave out (each push's answer gave the device those rows). A device catching up after a
    /// full download asks for them: a row it pushed while the download ran may be missing from
    /// the download, and is then known present only from the history. The server answers such
    /// a pull at once. Absent (nil) in requests of devices that predate it; servers that
    /// predate it leave the rows out.
    public var includesOwnChanges: Bool?

    public init(envelope: SyncEnvelope, cursor: String?, limit: Int = 2_000, wait: Double? = nil, includesOwnChanges: Bool? = nil) {
        self.envelope = envelope
        self.cursor = cursor
        self.limit = limit
        self.wait = wait
        self.includesOwnChanges = includesOwnChanges
    }
}

/// A page of the server's changes.
public struct SyncPullResponse: Sendable, Codable, Equatable {
    /// Rows changed after the request's cursor, each in its current state.
    public var changes: [SyncChange]
    /// Where this page ends: the next pull's cursor. Opaque to devices.
    public var cursor: String
    /// Whether more changes follow: pull again with ``cursor``.
    public var hasMore: Bool
    /// Whether the page is part of a full download, after which the device drops every row
    /// the download did not hold (rows deleted on the server while the device was away).
    public var isFullDownload: Bool
    /// Identifiers merged into others since the cursor (see ``SyncPushResponse/merged``).
    public var merged: [String: String]

    public init(changes: [SyncChange], cursor: String, hasMore: Bool, isFullDownload: Bool, merged: [String: String] = [:]) {
        self.changes = changes
        self.cursor = cursor
        self.hasMore = hasMore
        self.isFullDownload = isFullDownload
        self.merged = merged
    }
}

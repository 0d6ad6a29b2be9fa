/// What the server holds of the rows a push touches, read before the push is planned: the
/// planner's whole input besides the push, so that planning needs no database.
struct PushSnapshot {
    /// A row the push names, directly or through a relationship.
    struct Row: Equatable {
        let entity: String
        /// Its bookkeeping version when read; the save checks it unchanged.
        var version: Int64
        /// Its synced fields' values; nil when the row is gone (a tombstone, or deleted by the
        /// server's own code).
        var values: [String: SyncValue]?
        /// The clock of each field's last edit.
        var clocks: FieldRecord
    }

    /// Rows by identifier. An identifier missing here was never stored on the server.
    var rows: [String: Row] = [:]
    /// Identifiers merged into others by earlier pushes.
    var aliases: [String: String] = [:]
    /// The row holding each unique value the push's rows set, where one does.
    var owners: [UniqueValue: String] = [:]
    /// Whether the store keeps text holding NUL characters (PostgreSQL's cannot).
    var textHoldsNUL = true
}

/// One unique constraint's values: the constraint (its entity's hierarchy root and property
/// names) and the values, compared as the store compares them.
struct UniqueValue: Hashable {
    let root: String
    let properties: [String]
    let values: [SyncValue]
}

/// A push, decided: the rows to make, change and delete, with their bookkeeping, what is merged
/// and refused, and the counts of the answer. ``PushPlanner`` makes it; ``ServerPush`` writes it.
struct PushPlan {
    /// A row the push makes: its pushed fields, identifiers made canonical.
    struct Create {
        let gid: String
        let entity: String
        var values: [String: SyncValue]
    }

    /// A row the push changes: the fields whose resolved values differ from the stored ones.
    struct Update {
        let gid: String
        let entity: String
        var values: [String: SyncValue]
    }

    var creates: [Create] = []
    var updates: [Update] = []
    /// Rows deleted, in push order: identifier and entity.
    var deletes: [(gid: String, entity: String)] = []
    /// Each changed row's version as read (nil for a row made now) and its field clocks as they
    /// become.
    var records: [String: (version: Int64?, fields: FieldRecord)] = [:]
    /// Pushed identifiers merged into another row now (a unique value already stored).
    var merged: [String: String] = [:]
    var rejections: [SyncRejection] = []
    var accepted = 0
    var conflicts = 0
    /// The rows the answer describes, canonical, in push order, once each.
    var answer: [(gid: String, entity: String)] = []
}

import Foundation

/// What one commit changed in a store, as the contexts of the process learn it: the primary keys
/// of the rows inserted, updated and deleted, by entity name, read from the history for commits
/// of other processes. A commit whose rows are unknown is ``external``.
struct StoreChange: Sendable {
    var inserted: [String: [Int64]] = [:]
    var updated: [String: [Int64]] = [:]
    var deleted: [String: [Int64]] = [:]
    /// Set when which rows the commit touched is unknown: a commit by another process whose
    /// history cannot say, or one that emptied the store.
    var isExternal = false
    /// The ``Store`` (one per container) whose context committed; nil for other processes.
    var origin: ObjectIdentifier?

    static let external = StoreChange(isExternal: true)

    var isEmpty: Bool { !isExternal && inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// The entities whose rows the change names.
    var entityNames: Set<String> {
        Set(inserted.keys).union(updated.keys).union(deleted.keys)
    }

    /// How many keys the change names.
    var keyCount: Int {
        [inserted, updated, deleted].reduce(0) { $0 + $1.values.reduce(0) { $0 + $1.count } }
    }
}

/// How a change travels to other instances of a server on one database: as a
/// `LISTEN`/`NOTIFY` payload, JSON naming the sending instance and the keys by entity. A change
/// too large for one payload (8000 bytes) travels as a change of unknown rows.
extension StoreChange {
    private static let payloadLimit = 7_900

    /// The payload, written by hand: it is built on every commit, where `JSONSerialization`
    /// cost a tenth of a small save's time. `"from"` comes first, so an instance can skip its own
    /// announcements without parsing them.
    func announcement(from instance: String) -> String {
        let all = "{\"from\":\(Self.jsonString(instance)),\"all\":true}"
        // Each key takes at least two bytes of JSON: past the limit, skip building the text.
        if isExternal || keyCount * 2 > Self.payloadLimit { return all }
        var text = "{\"from\":\(Self.jsonString(instance))"
        for (name, keys) in [("i", inserted), ("u", updated), ("d", deleted)] where !keys.isEmpty {
            text += ",\"\(name)\":{"
            var first = true
            for (entity, rows) in keys {
                text += (first ? "" : ",") + Self.jsonString(entity) + ":["
                text += rows.map(String.init).joined(separator: ",") + "]"
                first = false
            }
            text += "}"
        }
        text += "}"
        return text.utf8.count <= Self.payloadLimit ? text : all
    }

    /// `string` as a JSON string literal.
    private static func jsonString(_ string: String) -> String {
        var quoted = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case _ where scalar.value < 0x20: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// The change another instance announced; nil for this instance's own announcements and for
    /// payloads that are not announcements.
    init?(announcement: String, ignoring instance: String) {
        if announcement.hasPrefix("{\"from\":\(Self.jsonString(instance)),") { return nil }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(announcement.utf8))) as? [String: Any],
            let from = object["from"] as? String, from != instance
        else { return nil }
        if object["all"] as? Bool == true {
            self = .external
            return
        }
        func keys(_ name: String) -> [String: [Int64]] {
            ((object[name] as? [String: [NSNumber]]) ?? [:]).mapValues { $0.map(\.int64Value) }
        }
        self.init(inserted: keys("i"), updated: keys("u"), deleted: keys("d"))
    }
}

import Foundation
import ModelKit
import ModelKitSync

// The models the chaos run syncs. `key` names a row for the run's reference model: set when the
// row is made, never edited.

/// A counter whose increments merge: the server sums concurrent ones (``ChaosModels/policies``).
@Model final class ChaosCounter {
    var key: String
    var value: Int
    init(key: String, value: Int) {
        self.key = key
        self.value = value
    }
}

/// A note: strings and a double under last-edit-wins, tags (a to-many) and a folder (a to-one).
@Model final class ChaosNote {
    var key: String
    var title: String
    var body: String
    var score: Double
    var folder: ChaosFolder?
    @Relationship(inverse: \ChaosTag.notes) var tags: [ChaosTag] = []
    init(key: String, title: String, body: String, score: Double, folder: ChaosFolder?) {
        self.key = key
        self.title = title
        self.body = body
        self.score = score
        self.folder = folder
    }
}

/// A tag, one row per name on every store.
@Model final class ChaosTag {
    @Attribute(.unique) var name: String
    var notes: [ChaosNote] = []
    init(name: String) { self.name = name }
}

/// A folder; deleting it deletes its notes.
@Model final class ChaosFolder {
    var key: String
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \ChaosNote.folder) var notes: [ChaosNote] = []
    init(key: String, title: String) {
        self.key = key
        self.title = title
    }
}

enum ChaosModels {
    static let types: [any PersistentModel.Type] = [ChaosCounter.self, ChaosNote.self, ChaosTag.self, ChaosFolder.self]

    /// Counters sum; everything else is last-edit-wins.
    static var policies: SyncPolicies {
        var policies = SyncPolicies()
        policies.set(\ChaosCounter.value, .custom { c in c.server + c.incoming - (c.base ?? 0) })
        return policies
    }
}

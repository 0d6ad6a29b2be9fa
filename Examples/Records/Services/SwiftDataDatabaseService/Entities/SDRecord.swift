import Foundation
import SwiftData

/// A record as the SwiftData store keeps it: primitives only, so `type` is the raw value of
/// ``RecordType``.
@Model
public final class SDRecord {
    /// The entity's own identifier: unique, and the key queries use.
    @Attribute(.unique) public var id: UUID
    /// The identifier of the record in the app's model.
    public var recordID: UUID
    public var title: String
    public var date: Date
    public var type: String
    public var amount: Double

    public init(id: UUID, recordID: UUID, title: String, date: Date, type: String, amount: Double) {
        self.id = id
        self.recordID = recordID
        self.title = title
        self.date = date
        self.type = type
        self.amount = amount
    }
}

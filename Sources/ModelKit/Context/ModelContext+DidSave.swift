import Foundation

extension ModelContext {
    /// Posts ``didSave`` with the identifiers a write saved, under ``NotificationKey`` raw values.
    ///
    /// The user info is made with room for its four keys at once (a dictionary literal of three
    /// grew for the fourth, rehashing its `AnyHashable` keys in every save), in a table of 32
    /// buckets: a dictionary compares the keys it meets on its way to a free bucket, and
    /// comparing two `AnyHashable` strings casts dynamically (about 1,500 instructions). In 8
    /// buckets, most hash seeds (one a process) made the four keys meet in every save.
    func postDidSave(
        inserted: [PersistentIdentifier], updated: [PersistentIdentifier], deleted: [PersistentIdentifier],
        token: DefaultHistoryToken? = nil
    ) {
        var userInfo = [AnyHashable: Any](minimumCapacity: 16)
        userInfo[NotificationKey.insertedIdentifiers.rawValue] = inserted
        userInfo[NotificationKey.updatedIdentifiers.rawValue] = updated
        userInfo[NotificationKey.deletedIdentifiers.rawValue] = deleted
        if let token { userInfo[NotificationKey.historyTokens.rawValue] = token }
        NotificationGate.shared.post(name: Self.didSave, object: self, userInfo: userInfo)
    }
}

import Foundation
import ModelKit
import ModelKitSync

// The models of the sharing tests: documents their owners share with other users, one by one
// (a share per user) or by putting them in other users' binders.

@Model final class Doc {
    var owner: String
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \DocShare.doc) var shares: [DocShare] = []
    var binders: [Binder] = []
    init(owner: String, title: String) {
        self.owner = owner
        self.title = title
    }
}

@Model final class DocShare {
    var userID: String
    var doc: Doc?
    init(userID: String, doc: Doc? = nil) {
        self.userID = userID
        self.doc = doc
    }
}

@Model final class Binder {
    var userID: String
    var name: String
    @Relationship(inverse: \Doc.binders) var docs: [Doc] = []
    init(userID: String, name: String) {
        self.userID = userID
        self.name = name
    }
}

let shareTypes: [any PersistentModel.Type] = [Doc.self, DocShare.self, Binder.self]

/// A document is read by its owner, the users it is shared with, and the owners of the binders
/// it is in; only its owner writes it. A share is read by the document's readers and written by
/// its owner; a binder is its user's.
let shareScopes: SyncScopes = {
    var scopes = SyncScopes()
    scopes.set(
        Doc.self,
        read: { user in
            #Predicate<Doc> { doc in
                doc.owner == user || doc.shares.contains { $0.userID == user } || doc.binders.contains { $0.userID == user }
            }
        },
        write: { user in #Predicate<Doc> { $0.owner == user } })
    scopes.set(
        DocShare.self,
        read: { user in #Predicate<DocShare> { share in share.userID == user || share.doc?.owner == user } },
        write: { user in #Predicate<DocShare> { share in share.doc?.owner == user } })
    scopes.set(Binder.self) { user in #Predicate<Binder> { $0.userID == user } }
    return scopes
}()

import Foundation
import ModelKit
import ModelKitSync

// The models of the scopes tests: notes a user owns, and projects shared with members.

@Model final class Project {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Membership.project) var members: [Membership] = []
    @Relationship(deleteRule: .cascade, inverse: \Chore.project) var chores: [Chore] = []
    init(name: String) { self.name = name }
}

@Model final class Membership {
    var userID: String
    var canWrite: Bool
    var project: Project?
    init(userID: String, canWrite: Bool, project: Project? = nil) {
        self.userID = userID
        self.canWrite = canWrite
        self.project = project
    }
}

@Model final class Chore {
    var title: String
    var done: Bool
    var project: Project?
    init(title: String, done: Bool = false, project: Project? = nil) {
        self.title = title
        self.done = done
        self.project = project
    }
}

@Model final class Memo {
    var owner: String
    var text: String
    init(owner: String, text: String) {
        self.owner = owner
        self.text = text
    }
}

let scopedTypes: [any PersistentModel.Type] = [Project.self, Membership.self, Chore.self, Memo.self]

/// The scopes of the tests: a user's own memos; projects, their memberships and chores read by
/// members and written by members who may write.
let memberScopes: SyncScopes = {
    var scopes = SyncScopes()
    scopes.set(Memo.self) { user in #Predicate<Memo> { $0.owner == user } }
    scopes.set(
        Project.self,
        read: { user in #Predicate<Project> { p in p.members.contains { $0.userID == user } } },
        write: { user in #Predicate<Project> { p in p.members.contains { $0.userID == user && $0.canWrite } } })
    scopes.set(
        Membership.self,
        read: { user in #Predicate<Membership> { m in m.project?.members.contains { $0.userID == user } == true } },
        write: { user in #Predicate<Membership> { m in m.project?.members.contains { $0.userID == user && $0.canWrite } == true } })
    scopes.set(
        Chore.self,
        read: { user in #Predicate<Chore> { c in c.project?.members.contains { $0.userID == user } == true } },
        write: { user in #Predicate<Chore> { c in c.project?.members.contains { $0.userID == user && $0.canWrite } == true } })
    return scopes
}()

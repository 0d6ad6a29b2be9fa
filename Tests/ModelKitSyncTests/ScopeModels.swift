import Foundation
import ModelKit

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

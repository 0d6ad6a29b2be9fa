import Foundation
import ModelKit
import ModelKitSync

// The models of the sharing tests: documents their owners share with other users, one by one
// (a share per user) or by filing them in teams, whose members read them.

@Model final class Doc {
    var owner: String
    var title: String
    @Relationship(deleteRule: .cascade, inverse: \DocShare.doc) var shares: [DocShare] = []
    var teams: [Team] = []
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

@Model final class Team {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \TeamMember.team) var members: [TeamMember] = []
    @Relationship(inverse: \Doc.teams) var docs: [Doc] = []
    init(name: String) { self.name = name }
}

@Model final class TeamMember {
    var userID: String
    var team: Team?
    init(userID: String, team: Team? = nil) {
        self.userID = userID
        self.team = team
    }
}

let shareTypes: [any PersistentModel.Type] = [Doc.self, DocShare.self, Team.self, TeamMember.self]

/// A document is read by its owner, the users it is shared with, and the members of the teams
/// it is filed in; only its owner writes it. A share is read by its user and the document's
/// owner, and written by the owner; a team and its members are read and written by its members.
let shareScopes: SyncScopes = {
    var scopes = SyncScopes()
    scopes.set(
        Doc.self,
        read: { user in
            #Predicate<Doc> { doc in
                doc.owner == user || doc.shares.contains { $0.userID == user }
                    || doc.teams.contains { team in team.members.contains { $0.userID == user } }
            }
        },
        write: { user in #Predicate<Doc> { $0.owner == user } })
    scopes.set(
        DocShare.self,
        read: { user in #Predicate<DocShare> { share in share.userID == user || share.doc?.owner == user } },
        write: { user in #Predicate<DocShare> { share in share.doc?.owner == user } })
    scopes.set(Team.self) { user in #Predicate<Team> { team in team.members.contains { $0.userID == user } } }
    scopes.set(TeamMember.self) { user in #Predicate<TeamMember> { member in member.team?.members.contains { $0.userID == user } == true } }
    return scopes
}()

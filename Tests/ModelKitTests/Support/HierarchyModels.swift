import Foundation
import ModelKit

// The shapes of Apple's "Adopting inheritance in SwiftData": a trip, its business and personal
// subclasses, and related models whose relationships point at the base class.

@Model class Excursion {
    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String
    var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \ExcursionStop.excursion)
    var stops: [ExcursionStop] = [ExcursionStop]()
    @Relationship(deleteRule: .cascade, inverse: \Lodging.excursion)
    var lodging: Lodging?

    init(name: String, destination: String, startDate: Date = .now) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}

@Model class BusinessExcursion: Excursion {
    var perdiem: Double = 0.0
    @Relationship(deleteRule: .cascade, inverse: \Expense.excursion)
    var expenses: [Expense] = []

    init(name: String, destination: String, startDate: Date = .now, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination, startDate: startDate)
    }
}

@Model final class PersonalExcursion: Excursion {
    enum Reason: String, CaseIterable, Codable, Identifiable {
        case family, reunion, wellness, unknown
        var id: Self { self }
    }

    var reason: Reason

    init(name: String, destination: String, startDate: Date = .now, reason: Reason) {
        self.reason = reason
        super.init(name: name, destination: destination, startDate: startDate)
    }
}

/// A subclass of a subclass.
@Model final class ConferenceExcursion: BusinessExcursion {
    var conference: String

    init(name: String, destination: String, perdiem: Double, conference: String) {
        self.conference = conference
        super.init(name: name, destination: destination, perdiem: perdiem)
    }
}

@Model final class ExcursionStop {
    var title: String
    var excursion: Excursion?

    init(title: String, excursion: Excursion? = nil) {
        self.title = title
        self.excursion = excursion
    }
}

@Model final class Lodging {
    var placeName: String
    var excursion: Excursion?

    init(placeName: String) {
        self.placeName = placeName
    }
}

@Model final class Expense {
    var amount: Double
    var excursion: BusinessExcursion?

    init(amount: Double) {
        self.amount = amount
    }
}

/// The schema Apple's article lists: the base class and its subclasses.
let excursionTypes: [any PersistentModel.Type] = [
    Excursion.self, BusinessExcursion.self, PersonalExcursion.self, ConferenceExcursion.self,
]

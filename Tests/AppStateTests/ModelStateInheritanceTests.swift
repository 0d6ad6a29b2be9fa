import AppState
import Foundation
import Observation
import SwiftData
import Testing

/// A model class and its subclass, for ModelState over a class hierarchy.
@Model class Vehicle {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class Truck: Vehicle {
    var payload: Int
    init(name: String, payload: Int) {
        self.payload = payload
        super.init(name: name)
    }
}

extension Application {
    var vehicles: ModelState<Vehicle> {
        modelState(container: \.modelContainer, fetchDescriptor: FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)]), id: "vehicles")
    }
}

@MainActor @Suite struct ModelStateInheritanceTests {
    @Test func aModelStateOfABaseClassListsSubclassesAndHearsTheirSaves() throws {
        let container = try ModelContainer(for: Vehicle.self, Truck.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try Application.withIsolatedScope {
            let token = Application.override(\.modelContainer, with: container)
            defer { withExtendedLifetime(token) {} }
            let fired = FireCount()
            withObservationTracking { _ = Application.modelState(\.vehicles).models } onChange: { fired.fire() }
            let background = ModelContext(container)
            background.insert(Truck(name: "Hauler", payload: 12))
            try background.save()
            #expect(fired.value == 1, "a save of a subclass is a save of the base class's rows")
            let vehicles = Application.modelState(\.vehicles).models
            #expect(vehicles.map(\.name) == ["Hauler"])
            #expect((vehicles.first as? Truck)?.payload == 12)
        }
    }
}

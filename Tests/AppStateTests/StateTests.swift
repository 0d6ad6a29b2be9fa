import Observation
import Synchronization
import Testing
@testable import AppState

struct User: Codable, Sendable, Equatable {
    var name: String
    var age: Int
}

extension Application {
    var count: State<Int> { state(initial: 0, id: "count") }
    var other: State<Int> { state(initial: 0, id: "other") }
    var user: State<User> { state(initial: User(name: "Ada", age: 36), id: "user") }
    var maybeUser: State<User?> { state(initial: nil, id: "maybeUser") }
    var autoState: State<String> { state(initial: "auto") }
    var countAsText: State<String> { state(initial: "", id: "count") }
}

@MainActor
final class CounterModel {
    @AppState(\.count) var count: Int
    @Slice(\.user, \.name) var name: String
    @Constant(\.user, \.age) var age: Int
    @OptionalSlice(\.maybeUser, \.name) var maybeName: String?
}

/// Counts how often an observation fires.
final class Fired: Sendable {
    let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
}

@MainActor
@Suite struct StateTests {
    @Test func valueStartsAtInitialAndKeepsWrites() {
        Application.withIsolatedScope {
            #expect(Application.state(\.count).value == 0)
            Application.state(\.count).value = 5
            #expect(Application.state(\.count).value == 5)
            #expect(Application.state(\.autoState).value == "auto")
        }
    }

    @Test func resetRestoresTheInitialValue() {
        Application.withIsolatedScope {
            Application.state(\.count).value = 5
            Application.reset(\.count)
            #expect(Application.state(\.count).value == 0)
            Application.state(\.count).value = 7
            Application.state(\.count).reset()
            #expect(Application.state(\.count).value == 0)
        }
    }

    @Test func wrappersReadAndWriteTheState() {
        Application.withIsolatedScope {
            let model = CounterModel()
            model.count += 2
            #expect(Application.state(\.count).value == 2)
            model.name = "Grace"
            #expect(Application.state(\.user).value == User(name: "Grace", age: 36))
            #expect(model.age == 36)
        }
    }

    @Test func optionalSliceIsNilWhileTheStateIsNil() {
        Application.withIsolatedScope {
            let model = CounterModel()
            #expect(model.maybeName == nil)
            model.maybeName = "ignored"
            #expect(Application.state(\.maybeUser).value == nil)
            Application.state(\.maybeUser).value = User(name: "Ada", age: 1)
            model.maybeName = "Lin"
            #expect(Application.state(\.maybeUser).value?.name == "Lin")
        }
    }

    @Test func writeNotifiesObserversOfThatKeyOnly() {
        Application.withIsolatedScope {
            let countFired = Fired()
            let otherFired = Fired()
            withObservationTracking { _ = CounterModel().count } onChange: { countFired.count.add(1, ordering: .relaxed) }
            withObservationTracking { _ = Application.state(\.other).value } onChange: {
                otherFired.count.add(1, ordering: .relaxed)
            }
            Application.state(\.count).value = 1
            #expect(countFired.value == 1)
            #expect(otherFired.value == 0)
            Application.state(\.other).value = 1
            #expect(otherFired.value == 1)
        }
    }

    @Test func sliceReadsAreTracked() {
        Application.withIsolatedScope {
            let fired = Fired()
            withObservationTracking { _ = CounterModel().name } onChange: { fired.count.add(1, ordering: .relaxed) }
            Application.slice(\.user, \.age).value = 40
            #expect(fired.value == 1)
        }
    }

    @Test func isolatedScopesDoNotShareState() async {
        Application.withIsolatedScope { Application.state(\.count).value = 42 }
        Application.withIsolatedScope { #expect(Application.state(\.count).value == 0) }
    }

    @Test(arguments: 0..<8) func parallelTestsSeeOnlyTheirOwnState(value: Int) async throws {
        try await Application.withIsolatedScope {
            Application.state(\.count).value = value
            try await Task.sleep(for: .milliseconds(5))
            #expect(Application.state(\.count).value == value)
        }
    }

    @Test func twoTypesUnderOneIDStopWithAClearMessage() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                _ = Application.state(\.count).value
                _ = Application.state(\.countAsText).value
            }
        }
    }
}

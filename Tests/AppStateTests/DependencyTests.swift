import Foundation
import Synchronization
import Testing
@testable import AppState

let taskBuilds = Atomic<Int>(0)
let threadBuilds = Atomic<Int>(0)

/// Counts a build, and sleeps to widen the window in which a second build could start.
func build(_ name: String, counting counter: borrowing Atomic<Int>) -> Service {
    counter.add(1, ordering: .relaxed)
    Thread.sleep(forTimeInterval: 0.01)
    return Service(name: name)
}

struct Service: Sendable {
    let name: String
}

extension Application {
    var taskCountedService: Dependency<Service> { dependency(build("real", counting: taskBuilds), id: "taskCounted") }
    var threadCountedService: Dependency<Service> {
        dependency(build("real", counting: threadBuilds), id: "threadCounted")
    }
    var service: Dependency<Service> { dependency(Service(name: "real"), feature: "Tests", id: "service") }
    var autoA: Dependency<Service> { dependency(Service(name: "a")) }
    var autoB: Dependency<Service> { dependency(Service(name: "b")) }
}

@Suite struct DependencyTests {
    @Test func builderRunsExactlyOnceWhenTasksRaceToFirstAccess() async {
        await Application.withIsolatedScope {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<32 {
                    group.addTask { Application.dependency(\.taskCountedService).name }
                }
                for await name in group { #expect(name == "real") }
            }
        }
        #expect(taskBuilds.load(ordering: .relaxed) == 1)
    }

    /// Threads outside any task see the shared application; only this test uses this dependency.
    @Test func builderRunsExactlyOnceWhenThreadsRaceToFirstAccess() {
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            #expect(Application.dependency(\.threadCountedService).name == "real")
        }
        #expect(threadBuilds.load(ordering: .relaxed) == 1)
    }

    @Test func resolvesFromAnActor() async {
        actor Worker {
            func name() -> String { Application.dependency(\.service).name }
        }
        #expect(await Worker().name() == "real")
    }

    @Test func autoIDsAreDistinctPerCallSite() {
        Application.withIsolatedScope {
            #expect(Application.dependency(\.autoA).name == "a")
            #expect(Application.dependency(\.autoB).name == "b")
            #expect(Application.current.autoA.scope.key != Application.current.autoB.scope.key)
        }
    }

    @Test func wrapperResolvesTheCurrentValue() {
        struct Consumer {
            @AppDependency(\.service) var service: Service
        }
        Application.withIsolatedScope {
            #expect(Consumer().service.name == "real")
            let token = Application.override(\.service, with: Service(name: "mock"))
            #expect(Consumer().service.name == "mock")
            withExtendedLifetime(token) {}
        }
    }

    @Test func promoteReplacesTheBuiltValue() {
        Application.withIsolatedScope {
            #expect(Application.dependency(\.service).name == "real")
            Application.promote(\.service, with: Service(name: "promoted"))
            #expect(Application.dependency(\.service).name == "promoted")
        }
    }

    @Test func descriptionListsResolvedAndOverriddenKeys() {
        Application.withIsolatedScope {
            _ = Application.dependency(\.service)
            let token = Application.override(\.service, with: Service(name: "mock"))
            #expect(Application.current.description.contains("Tests/service (overridden)"))
            withExtendedLifetime(token) {}
        }
    }
}

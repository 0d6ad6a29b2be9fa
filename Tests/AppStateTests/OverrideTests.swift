import Testing
@testable import AppState

@Suite struct OverrideTests {
    @Test func cancelRestoresTheOriginal() async {
        await Application.withIsolatedScope {
            let token = Application.override(\.service, with: Service(name: "mock"))
            #expect(Application.dependency(\.service).name == "mock")
            await token.cancel()
            #expect(Application.dependency(\.service).name == "real")
            await token.cancel()  // a second cancel does nothing
            #expect(Application.dependency(\.service).name == "real")
        }
    }

    @Test func releasingTheTokenRestoresTheOriginal() {
        Application.withIsolatedScope {
            do {
                let token = Application.override(\.service, with: Service(name: "mock"))
                #expect(Application.dependency(\.service).name == "mock")
                withExtendedLifetime(token) {}
            }
            #expect(Application.dependency(\.service).name == "real")
        }
    }

    @Test func nestedOverridesUnwindInOrder() async {
        await Application.withIsolatedScope {
            let outer = Application.override(\.service, with: Service(name: "outer"))
            let inner = Application.override(\.service, with: Service(name: "inner"))
            #expect(Application.dependency(\.service).name == "inner")
            await inner.cancel()
            #expect(Application.dependency(\.service).name == "outer")
            await outer.cancel()
            #expect(Application.dependency(\.service).name == "real")
        }
    }

    @Test func cancellingTheOuterOverrideKeepsTheInnerOne() async {
        await Application.withIsolatedScope {
            let outer = Application.override(\.service, with: Service(name: "outer"))
            let inner = Application.override(\.service, with: Service(name: "inner"))
            await outer.cancel()
            #expect(Application.dependency(\.service).name == "inner")
            await inner.cancel()
            #expect(Application.dependency(\.service).name == "real")
        }
    }
}

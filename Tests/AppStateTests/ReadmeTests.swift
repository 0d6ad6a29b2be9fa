import AppState
import Testing

// The README's tour, verbatim: if this file stops compiling, the README is wrong.

struct Greeter: Sendable {
    let greeting: String
    func greet(_ name: String) -> String { "\(greeting), \(name)!" }
}

struct Settings: Codable, Sendable {
    var theme = "light"
    var fontSize = 14
}

extension Application {
    var greeter: Dependency<Greeter> { dependency(Greeter(greeting: "Hello")) }
    var visits: State<Int> { state(initial: 0) }
    var settings: StoredState<Settings> { storedState(initial: Settings(), id: "settings") }
    var drafts: FileState<[String]> { fileState(initial: [], filename: "drafts.json") }
}

@MainActor
final class SettingsModel {
    @AppDependency(\.greeter) var greeter: Greeter
    @AppState(\.visits) var visits: Int
    @Slice(\.settings, \.theme) var theme: String
    @Constant(\.settings, \.fontSize) var fontSize: Int

    func visit(_ name: String) -> String {
        visits += 1
        return greeter.greet(name)
    }
}

@Test @MainActor func greetsThroughTheMock() async {
    await Application.withIsolatedScope {
        let token = Application.override(\.greeter, with: Greeter(greeting: "Hi"))
        #expect(SettingsModel().visit("Ada") == "Hi, Ada!")
        #expect(Application.state(\.visits).value == 1)
        await token.cancel()
        #expect(SettingsModel().visit("Ada") == "Hello, Ada!")
    }
}

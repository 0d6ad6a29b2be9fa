import Foundation
import Observation
import Synchronization
import Testing
@testable import AppState

/// A subclass, as apps make to override behaviour (item 1).
/// Swift asks subclasses of a `Sendable` class to restate the conformance.
final class CustomApplication: Application, @unchecked Sendable {}

final class BuildCount: Sendable {
    let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func built() { count.add(1, ordering: .relaxed) }
}

let parityBuilds = BuildCount()

struct Greeting: Sendable {
    let text: String
}

struct Composed: Sendable {
    let greeting: Greeting
}

/// A value-type dependency (item 18).
struct Preferences: Sendable {
    var isVerbose = false
    var retries = 3
}

/// A class dependency mutated in place.
final class Counter: @unchecked Sendable {
    var count = 0
}

/// An in-memory `UserDefaults` (item 12).
final class InMemoryDefaults: UserDefaultsManaging, @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Any] = [:]
    func object(forKey key: String) -> Any? { lock.withLock { values[key] } }
    func removeObject(forKey key: String) { lock.withLock { values[key] = nil } }
    func set(_ value: Any?, forKey key: String) { lock.withLock { values[key] = value } }
}

struct Person: Codable, Sendable, Equatable {
    var first: String
    var last: String
    var fullName: String { "\(first) \(last)" }
}

extension Application {
    var countedGreeting: Dependency<Greeting> {
        dependency({ parityBuilds.built(); return Greeting(text: "hi") }(), id: "countedGreeting")
    }
    var greeting: Dependency<Greeting> { dependency(Greeting(text: "hello"), id: "greeting") }
    // A definer that uses another, with implicit self (item 15).
    var composed: Dependency<Composed> { dependency(Composed(greeting: greeting.value), id: "composed") }
    var preferences: Dependency<Preferences> { dependency(Preferences(), id: "preferences") }
    var counter: Dependency<Counter> { dependency(Counter(), id: "counter") }
    var person: State<Person> { state(initial: Person(first: "Ada", last: "Lovelace"), id: "person") }
    var maybePerson: State<Person?> { state(initial: Person(first: "Alan", last: "Turing"), id: "maybePerson") }
    var nickname: StoredState<String?> { storedState(id: "nickname") }
    var draft: FileState<String?> { fileState(path: FileStateLocation.path, filename: "draft.txt") }
    var plainNote: FileState<String> {
        fileState(initial: "", path: FileStateLocation.path, filename: "note.json", isBase64Encoded: false)
    }
    var encodedNote: FileState<String> { fileState(initial: "", path: FileStateLocation.path, filename: "note.json") }
}

@MainActor
final class ParityViewModel {
    @OptionalConstant(\.maybePerson, \.first) var firstName: String?
    @DependencySlice(\.preferences, \.isVerbose) var isVerbose: Bool
    @DependencySlice(\.counter, \.count) var count: Int
}

/// Code written for AppState 3.0.1 compiles here and behaves the same (`../shared/spec/APPSTATE-API.md`).
@MainActor
@Suite struct AppStateParityTests {
    func isolated(_ body: () throws -> Void) rethrows {
        try Application.withIsolatedScope(body)
    }

    @Test func applicationIsAnOpenClassWithASetupInit() {
        var ranSetup = false
        let application: Application = CustomApplication { _ in ranSetup = true }
        #expect(ranSetup)
        #expect(application is CustomApplication)
    }

    @Test func promoteSwapsInASubclassAndKeepsRegisteredState() {
        let marker = "promote-\(UUID().uuidString)"
        let state = Application.shared.state(initial: "", id: marker)
        state.value = "kept"
        let promoted = Application.promote(to: CustomApplication.self)
        #expect(promoted == CustomApplication.self)
        #expect(Application.shared is CustomApplication)
        #expect(Application.shared.state(initial: "", id: marker).value == "kept")
    }

    @Test func loadBuildsADependencyAheadOfUse() {
        isolated {
            let before = parityBuilds.value
            Application.load(dependency: \.countedGreeting)
            #expect(parityBuilds.value == before + 1)
            _ = Application.dependency(\.countedGreeting)
            #expect(parityBuilds.value == before + 1)
        }
    }

    @Test func anOverriddenDependencyIsNeverBuilt() {
        isolated {
            let before = parityBuilds.value
            let token = Application.override(\.countedGreeting, with: Greeting(text: "mock"))
            #expect(Application.dependency(\.countedGreeting).text == "mock")
            #expect(parityBuilds.value == before)
            withExtendedLifetime(token) {}
        }
    }

    @Test func staticDescriptionDumpsTheCurrentApplication() {
        isolated {
            _ = Application.dependency(\.greeting)
            #expect(Application.description.contains("App/greeting"))
        }
    }

    @Test func notifyChangeFiresEveryObserver() {
        isolated {
            let fired = Fired()
            withObservationTracking { _ = Application.state(\.person).value } onChange: { fired.count.add(1, ordering: .relaxed) }
            Application.current.notifyChange()
            #expect(fired.value == 1)
        }
    }

    @Test func dependencySliceReadsAndWritesThroughAWritableKeyPath() {
        isolated {
            let retries = Application.dependencySlice(\.preferences, \.retries)
            #expect(retries.value == 3)
            retries.value = 5
            #expect(Application.dependency(\.preferences).retries == 5)
            let text = Application.dependencySlice(\.composed, \.greeting.text)
            #expect(text.value == "hello")
        }
    }

    @Test func optionalConstantReadsPartOfAnOptionalState() {
        isolated {
            let model = ParityViewModel()
            #expect(model.firstName == "Alan")
            Application.state(\.maybePerson).value = nil
            #expect(model.firstName == nil)
        }
    }

    @Test func storedStateWithoutInitialIsOptionalAndNilRemovesTheKey() {
        let defaults = InMemoryDefaults()
        Application.withIsolatedScope {
            let token = Application.override(\.userDefaults, with: defaults)
            defer { withExtendedLifetime(token) {} }
            #expect(Application.storedState(\.nickname).value == nil)
            Application.storedState(\.nickname).value = "Ada"
            #expect(defaults.object(forKey: "App/nickname") != nil)
            Application.storedState(\.nickname).value = nil
            #expect(defaults.object(forKey: "App/nickname") == nil)
        }
    }

    @Test func userDefaultsCanBeOverriddenWithAnInMemoryFake() {
        let defaults = InMemoryDefaults()
        Application.withIsolatedScope {
            let token = Application.override(\.userDefaults, with: defaults)
            defer { withExtendedLifetime(token) {} }
            Application.storedState(\.nickname).value = "Grace"
        }
        let relaunched = Application.withIsolatedScope {
            let token = Application.override(\.userDefaults, with: defaults)
            defer { withExtendedLifetime(token) {} }
            return Application.storedState(\.nickname).value
        }
        #expect(relaunched == "Grace")
    }

    @Test func fileStateWithoutInitialIsOptionalAndNilDeletesTheFile() throws {
        let directory = try TemporaryDirectory()
        FileStateLocation.$path.withValue(directory.url.path) {
            isolated {
                let file = directory.url.appendingPathComponent("draft.txt")
                #expect(Application.fileState(\.draft).value == nil)
                Application.fileState(\.draft).value = "words"
                #expect(FileManager.default.fileExists(atPath: file.path))
                Application.fileState(\.draft).value = nil
                #expect(!FileManager.default.fileExists(atPath: file.path))
            }
        }
    }

    @Test func fileStateWritesPlainOrBase64JSONAndReadsBoth() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("note.json")
        FileStateLocation.$path.withValue(directory.url.path) {
            isolated { Application.fileState(\.plainNote).value = "plain" }
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "\"plain\"")
        FileStateLocation.$path.withValue(directory.url.path) {
            isolated { #expect(Application.fileState(\.encodedNote).value == "plain") }
            isolated { Application.fileState(\.encodedNote).value = "encoded" }
        }
        #expect(try Data(contentsOf: file) == Data("\"encoded\"".utf8).base64EncodedData())
        FileStateLocation.$path.withValue(directory.url.path) {
            isolated { #expect(Application.fileState(\.plainNote).value == "encoded") }
        }
    }

    @Test func defaultFileStatePathIsSettableAndPerProgram() {
        let original = FileManager.defaultFileStatePath
        #if !canImport(Darwin)
        #expect(original.hasSuffix("/\(ProcessInfo.processInfo.processName)"))
        #endif
        FileManager.defaultFileStatePath = "/tmp/elsewhere"
        #expect(FileManager.defaultFileStatePath == "/tmp/elsewhere")
        FileManager.defaultFileStatePath = original
    }

    @Test func resetWorksForEveryStateKind() {
        let defaults = InMemoryDefaults()
        Application.withIsolatedScope {
            let token = Application.override(\.userDefaults, with: defaults)
            defer { withExtendedLifetime(token) {} }
            Application.storedState(\.nickname).value = "Ada"
            Application.reset(\.nickname)
            #expect(Application.storedState(\.nickname).value == nil)
            Application.state(\.person).value.first = "Grace"
            Application.reset(\.person)
            #expect(Application.state(\.person).value.first == "Ada")
        }
    }

    @Test func sliceAcceptsAReadOnlyKeyPath() {
        isolated {
            #expect(Application.slice(\.person, \.fullName).value == "Ada Lovelace")
            Application.slice(\.person, \.first).value = "Augusta"
            #expect(Application.slice(\.person, \.fullName).value == "Augusta Lovelace")
        }
    }

    @Test func aDefinerCanUseAnotherWithImplicitSelf() {
        isolated {
            #expect(Application.dependency(\.composed).greeting.text == "hello")
        }
    }

    @Test func everyStateKindHasAnEmoji() {
        func emoji<S: MutableApplicationState>(_ type: S.Type) -> Character { type.emoji }
        #expect(emoji(Application.StoredState<Int>.self) == "💾")
        #expect(emoji(Application.FileState<Int>.self) == "🗄️")
        #expect(emoji(Application.Slice<Application.State<Person>, String>.self) == "❓")
        #expect(Application.ModelState<Item>.emoji == "🗃️")
        #expect(["🔄", "📦"].contains(Application.State<Int>.emoji))
    }

    @Test func writingThroughDependencySliceFiresObservationForItsReaders() {
        isolated {
            let model = ParityViewModel()
            let fired = Fired()
            withObservationTracking { _ = Application.dependency(\.counter).count } onChange: { fired.count.add(1, ordering: .relaxed) }
            model.count = 4
            #expect(fired.value == 1)
            #expect(Application.dependency(\.counter).count == 4)
        }
    }

    @Test func dependencySliceWorksForValueTypeDependencies() {
        isolated {
            let model = ParityViewModel()
            #expect(!model.isVerbose)
            model.isVerbose = true
            #expect(Application.dependency(\.preferences).isVerbose)
            #expect(model.isVerbose)
            // While overridden, the write goes to the override and ends with it.
            let token = Application.override(\.preferences, with: Preferences(isVerbose: false, retries: 1))
            model.isVerbose = true
            #expect(Application.dependency(\.preferences).retries == 1)
            #expect(Application.dependency(\.preferences).isVerbose)
            withExtendedLifetime(token) {}
        }
    }
}

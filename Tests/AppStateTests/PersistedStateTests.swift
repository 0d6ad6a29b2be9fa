import Foundation
import Testing
@testable import AppState

/// The temp directory a test's FileStates live in, set per test through a task-local.
enum FileStateLocation {
    @TaskLocal static var path = FileManager.default.temporaryDirectory.path
}

extension Application {
    var theme: StoredState<String> { storedState(initial: "light", id: "theme") }
    var themeAsNumber: StoredState<Int> { storedState(initial: 0, id: "theme") }
    /// An in-memory state under the same id as a stored one, of another type.
    var themeInMemory: State<Int> { state(initial: 7, id: "theme") }
    var profile: FileState<User> {
        fileState(initial: User(name: "nobody", age: 0), path: FileStateLocation.path, filename: "profile.json")
    }
    var profileAsNumber: FileState<Int> { fileState(initial: -1, path: FileStateLocation.path, filename: "profile.json") }
}

@MainActor
struct PersistedStateTests {
    /// Runs `body` in an isolated scope whose UserDefaults, file directory and logger are the test's own.
    func withTemporaryStores(_ body: (TemporaryDefaults, URL, CapturedLog) throws -> Void) throws {
        let defaults = TemporaryDefaults()
        let directory = try TemporaryDirectory()
        let log = CapturedLog()
        try FileStateLocation.$path.withValue(directory.url.path) {
            try Application.withIsolatedScope {
                let tokens = [
                    Application.override(\.userDefaults, with: SendableUserDefaults(defaults.defaults)),
                    Application.override(\.logger, with: log.logger),
                ]
                try body(defaults, directory.url, log)
                withExtendedLifetime(tokens) {}
            }
        }
    }

    /// A fresh application over the same stores, as a relaunch would see them.
    func relaunched<R>(_ defaults: TemporaryDefaults, _ log: CapturedLog, _ body: () throws -> R) rethrows -> R {
        try Application.withIsolatedScope {
            let tokens = [
                Application.override(\.userDefaults, with: SendableUserDefaults(UserDefaults(suiteName: defaults.name)!)),
                Application.override(\.logger, with: log.logger),
            ]
            defer { withExtendedLifetime(tokens) {} }
            return try body()
        }
    }

    @Test func storedStateSurvivesANewApplication() throws {
        try withTemporaryStores { defaults, _, log in
            #expect(Application.storedState(\.theme).value == "light")
            Application.storedState(\.theme).value = "dark"
            #expect(relaunched(defaults, log) { Application.storedState(\.theme).value } == "dark")
            Application.reset(storedState: \.theme)
            #expect(relaunched(defaults, log) { Application.storedState(\.theme).value } == "light")
            #expect(log.entries.isEmpty)
        }
    }

    @Test func storedStateReadsAPlainValueWrittenWithoutAppState() throws {
        try withTemporaryStores { defaults, _, _ in
            defaults.defaults.set("sepia", forKey: "App/theme")
            #expect(Application.storedState(\.theme).value == "sepia")
        }
    }

    @Test func corruptStoredValueFallsBackLogsAndIsKeptAside() throws {
        try withTemporaryStores { defaults, _, log in
            let garbage = Data("{not json".utf8)
            defaults.defaults.set(garbage, forKey: "App/theme")
            #expect(Application.storedState(\.theme).value == "light")
            #expect(defaults.defaults.data(forKey: "App/theme.corrupt") == garbage)
            #expect(defaults.defaults.object(forKey: "App/theme") == nil)
            let errors = log.entries.filter { $0.level == .error }
            #expect(errors.count == 1)
            #expect(errors.first?.message.contains("corrupt") == true)
            #expect(errors.first?.fileID == "AppStateTests/PersistedStateTests.swift")
        }
    }

    @Test func aStateAndAStoredStateUnderOneIDStayApart() throws {
        try withTemporaryStores { _, _, log in
            #expect(Application.state(\.themeInMemory).value == 7)
            Application.storedState(\.theme).value = "dark"
            #expect(Application.state(\.themeInMemory).value == 7)
            #expect(Application.storedState(\.theme).value == "dark")
            #expect(log.entries.isEmpty)
        }
    }

    @Test func aPropertyListValueJSONCannotHoldIsTreatedAsCorrupt() throws {
        try withTemporaryStores { defaults, _, log in
            let date = Date(timeIntervalSince1970: 1_000)
            defaults.defaults.set(date, forKey: "App/theme")
            #expect(Application.storedState(\.theme).value == "light")
            #expect(log.messages(at: .error).first?.contains("corrupt") == true)
            #expect(defaults.defaults.object(forKey: "App/theme.corrupt") as? Date == date)
        }
    }

    @Test func storedValueOfAnotherTypeIsReportedAndLeftInPlace() throws {
        try withTemporaryStores { defaults, _, log in
            Application.storedState(\.themeAsNumber).value = 3
            let number = relaunched(defaults, log) { Application.storedState(\.theme).value }
            #expect(number == "light")
            #expect(log.messages(at: .error).count == 1)
            #expect(log.messages(at: .error).first?.contains("is not a String") == true)
            #expect(relaunched(defaults, log) { Application.storedState(\.themeAsNumber).value } == 3)
        }
    }

    @Test func storedStateWrapperReadsAndWrites() throws {
        struct Settings {
            @StoredState(\.theme) var theme: String
        }
        try withTemporaryStores { _, _, _ in
            let settings = Settings()
            settings.theme = "dark"
            #expect(Application.storedState(\.theme).value == "dark")
            Application.reset(\.theme)  // `$theme` is a SwiftUI Binding on Apple platforms
            #expect(settings.theme == "light")
        }
    }

    @Test func fileStateWritesBase64JSONThatSurvivesANewApplication() throws {
        try withTemporaryStores { defaults, directory, log in
            Application.fileState(\.profile).value = User(name: "Grace", age: 85)
            let file = directory.appendingPathComponent("profile.json")
            let json = try #require(Data(base64Encoded: Data(contentsOf: file)), "base64, as in AppState")
            let decoded = try JSONDecoder().decode(User.self, from: json)
            #expect(decoded == User(name: "Grace", age: 85))
            #expect(relaunched(defaults, log) { Application.fileState(\.profile).value.name } == "Grace")
            Application.reset(fileState: \.profile)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(log.entries.isEmpty)
        }
    }

    @Test func corruptFileFallsBackLogsAndIsMovedAside() throws {
        try withTemporaryStores { _, directory, log in
            let file = directory.appendingPathComponent("profile.json")
            try Data("{\"name\": tru".utf8).write(to: file)
            #expect(Application.fileState(\.profile).value == User(name: "nobody", age: 0))
            let contents = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(contents.contains { $0.hasPrefix("profile.json.corrupt-") })
            #expect(!contents.contains("profile.json"))
            #expect(log.messages(at: .error).count == 1)
            Application.fileState(\.profile).value.age = 1
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func fileOfAnotherTypeIsReportedAndLeftInPlace() throws {
        try withTemporaryStores { _, directory, log in
            try Data("42".utf8).write(to: directory.appendingPathComponent("profile.json"))
            #expect(Application.fileState(\.profile).value.name == "nobody")
            #expect(log.messages(at: .error).first?.contains("is not a User") == true)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("profile.json").path))
        }
    }

    @Test func unwritableDirectoryIsLoggedAndTheValueKept() throws {
        try withTemporaryStores { _, directory, log in
            let blocker = directory.appendingPathComponent("blocker")
            try Data().write(to: blocker)  // a file where the state's directory should be
            FileStateLocation.$path.withValue(blocker.path) {
                Application.fileState(\.profile).value = User(name: "kept", age: 1)
                #expect(Application.fileState(\.profile).value.name == "kept")
                #expect(log.messages(at: .error).first?.contains("could not save User") == true)
            }
        }
    }
}

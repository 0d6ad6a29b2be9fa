import Foundation
import Synchronization
@testable import AppState

typealias CapturedLog = ApplicationLogger.Recorder

/// A directory under the system temp directory, removed when the test is done with it.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("AppStateTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A UserDefaults suite of its own, removed when the test is done with it.
final class TemporaryDefaults {
    let name = "AppStateTests-\(UUID().uuidString)"
    let defaults: UserDefaults

    init() { defaults = UserDefaults(suiteName: name)! }

    deinit {
        defaults.removePersistentDomain(forName: name)
        defaults.synchronize()
    }
}

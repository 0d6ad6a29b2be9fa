import Foundation
import Synchronization

private let fileStatePath = Mutex<String>(defaultFileStateDirectory())

/// `<Documents>/App` on Apple platforms, as in AppState; elsewhere `<data dir>/<program name>`
/// (`$XDG_DATA_HOME`, or `~/.local/share`), so two programs keep their files apart, as ModelKit's
/// default stores do.
private func defaultFileStateDirectory() -> String {
    #if canImport(Darwin)
    let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first
    return documents?.appendingPathComponent("App", isDirectory: true).path ?? "~/App"
    #else
    return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        .appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true).path
    #endif
}

extension FileManager {
    /// Where ``Application/FileState`` keeps its files unless told otherwise. Set it early, before
    /// the first file state is read, to move them all.
    ///
    /// By default `<Documents>/App` on Apple platforms, as in AppState; elsewhere
    /// `<data dir>/<program name>` (`~/.local/share/<program>` unless `XDG_DATA_HOME` says
    /// otherwise), so two programs never share a file.
    public static var defaultFileStatePath: String {
        get { fileStatePath.withLock { $0 } }
        set { fileStatePath.withLock { $0 = newValue } }
    }
}

extension Application {
    /// State persisted as a JSON file, so it survives relaunches.
    ///
    /// ```swift
    /// extension Application {
    ///     var profile: FileState<Profile> { fileState(initial: Profile(), filename: "profile.json") }
    /// }
    /// ```
    ///
    /// A corrupt file is renamed to `<filename>.corrupt-<timestamp>` and the state falls back to its
    /// initial value; a file holding another type is left alone. Both are logged as errors.
    public struct FileState<Value: Codable & Sendable>: MutableApplicationState {
        /// The emoji for file state in log messages.
        public static var emoji: Character { "🗄️" }

        let core: PersistedState<Value>

        /// The current value. Setting it rewrites the file atomically.
        @MainActor public var value: Value {
            get { core.value }
            nonmutating set { core.value = newValue }
        }

        /// Sets the value back to the initial value and deletes the file.
        @MainActor public func reset() { core.reset() }
    }

    /// Registers state persisted in the file `path/filename`.
    ///
    /// As in AppState, the file holds base64-encoded JSON unless `isBase64Encoded` is false; either
    /// form is read back.
    public func fileState<Value: Codable & Sendable>(
        initial: @autoclosure @escaping () -> Value,
        path: String = FileManager.defaultFileStatePath,
        filename: String,
        isBase64Encoded: Bool = true,
        fileID: String = #fileID,
        line: Int = #line
    ) -> FileState<Value> {
        let url = URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent(filename)
        return FileState(
            core: PersistedState(
                app: self, key: url.path, cacheKey: "FileState/\(url.path)", initial: initial,
                backend: { FileBackend(fileManager: self.fileManager.value, url: url) },
                isBase64Encoded: isBase64Encoded, fileID: fileID, line: line))
    }

    /// Registers optional state persisted in the file `path/filename`, nil until set. Setting it
    /// to nil deletes the file.
    public func fileState<Value: Codable & Sendable>(
        path: String = FileManager.defaultFileStatePath,
        filename: String,
        isBase64Encoded: Bool = true,
        fileID: String = #fileID,
        line: Int = #line
    ) -> FileState<Value?> {
        fileState(initial: nil, path: path, filename: filename, isBase64Encoded: isBase64Encoded, fileID: fileID, line: line)
    }

    /// Returns a file state of the current application.
    @MainActor
    public static func fileState<Value>(_ keyPath: KeyPath<Application, FileState<Value>>) -> FileState<Value> {
        current[keyPath: keyPath]
    }

    /// Sets a file state back to its initial value and deletes its file.
    @MainActor
    public static func reset<Value>(fileState keyPath: KeyPath<Application, FileState<Value>>) {
        current[keyPath: keyPath].reset()
    }
}

import Foundation

extension FileManager {
    /// Where ``Application/FileState`` keeps its files unless told otherwise:
    /// `<application support>/AppState`, which on Linux honours `XDG_DATA_HOME`
    /// (`~/.local/share/AppState` by default).
    public static var defaultFileStatePath: String {
        FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            .appendingPathComponent("AppState", isDirectory: true).path
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
    public func fileState<Value: Codable & Sendable>(
        initial: @autoclosure @escaping () -> Value,
        path: String = FileManager.defaultFileStatePath,
        filename: String,
        fileID: String = #fileID,
        line: Int = #line
    ) -> FileState<Value> {
        let url = URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent(filename)
        return FileState(
            core: PersistedState(
                app: self, key: url.path, cacheKey: "FileState/\(url.path)", initial: initial,
                backend: { FileBackend(fileManager: self.fileManager.value, url: url) },
                fileID: fileID, line: line))
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

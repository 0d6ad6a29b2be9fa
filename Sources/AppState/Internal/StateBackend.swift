import Foundation

/// Where a persisted state keeps its encoded value between launches.
protocol StateBackend {
    /// A description for log messages, such as the file path or defaults key.
    var location: String { get }
    /// The stored bytes, or nil when nothing is stored.
    func read() throws -> Data?
    func write(_ data: Data) throws
    func remove() throws
    /// Moves an unreadable value aside, where it is kept for inspection, and returns where.
    func quarantine() throws -> String
}

/// A ``StateBackend`` over one UserDefaults key.
struct UserDefaultsBackend: StateBackend {
    let defaults: any UserDefaultsManaging
    let key: String

    var location: String { "UserDefaults key '\(key)'" }

    func read() throws -> Data? {
        switch defaults.object(forKey: key) {
        case nil: return nil
        case let data as Data: return data
        // A plain value written without AppState (a number, a string, an array): read it as JSON.
        // Property-list values JSON cannot hold (a date, say) read as unreadable bytes, so they are
        // treated as corrupt; on Apple platforms serializing them would raise an exception.
        // Wrapped in an array, so that a lone number or string counts as valid too.
        case let object? where JSONSerialization.isValidJSONObject([object]):
            return try JSONSerialization.data(withJSONObject: object, options: .fragmentsAllowed)
        case .some: return Data()
        }
    }

    func write(_ data: Data) throws {
        defaults.set(data, forKey: key)
    }

    func remove() throws {
        defaults.removeObject(forKey: key)
    }

    func quarantine() throws -> String {
        let aside = "\(key).corrupt"
        defaults.set(defaults.object(forKey: key), forKey: aside)
        try remove()
        return "UserDefaults key '\(aside)'"
    }
}

/// A ``StateBackend`` over one file, written atomically.
struct FileBackend: StateBackend {
    let fileManager: FileManager
    let url: URL

    var location: String { url.path }

    func read() throws -> Data? {
        guard fileManager.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    func write(_ data: Data) throws {
        try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }

    func remove() throws {
        guard fileManager.fileExists(atPath: url.path) else { return }
        try fileManager.removeItem(at: url)
    }

    func quarantine() throws -> String {
        let stamp = Int(Date().timeIntervalSince1970)
        let aside = url.deletingLastPathComponent().appendingPathComponent("\(url.lastPathComponent).corrupt-\(stamp)")
        try fileManager.moveItem(at: url, to: aside)
        return aside.path
    }
}

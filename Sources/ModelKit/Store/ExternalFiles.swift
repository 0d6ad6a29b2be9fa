import Foundation

/// Where an on-disk store keeps `@Attribute(.externalStorage)` values too large for the row: one
/// file per value, in `<store file>_external/` beside the store, named by a UUID that the row
/// holds (as text, where small values stay blobs).
///
/// Files are written in the save's turn at the writer, before its transaction commits; files a
/// failed save wrote are removed, and files whose rows were updated or deleted (by a save, a
/// batch delete or `deleteAllData()`) are removed once the transaction commits. A crash between
/// writing and committing leaves a file no row names: harmless, and not reclaimed.
struct ExternalFiles: Sendable {
    /// Values of at least this many bytes go to files.
    static let threshold = 16 * 1024
    /// Files of at least this many bytes are mapped rather than read: a fetch of many models with
    /// large values reads none of their bytes, and pages load as they are used. A file is never
    /// changed in place (a new value gets a new file), so a mapping stays valid once a later save
    /// removes its file. Smaller files are read: each mapping takes one of the process's limited
    /// memory map areas.
    static let mappingThreshold = 1 << 20

    let directory: URL

    init(store url: URL) {
        directory = url.deletingLastPathComponent().appendingPathComponent(url.lastPathComponent + "_external", isDirectory: true)
    }

    /// Writes `data` to a new file and returns its name.
    /// - Throws: ``ModelKitError/cannotOpenStore(_:reason:)`` when the directory cannot be written.
    func write(_ data: Data) throws -> String {
        let name = UUID().uuidString
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: directory.appendingPathComponent(name), options: .atomic)
        } catch {
            throw ModelKitError.cannotOpenStore(directory, reason: "cannot write an external value: \(error.localizedDescription)")
        }
        return name
    }

    /// The value in file `name`, or nil if it is gone or `name` is not a file name.
    func read(_ name: String) -> Data? {
        guard UUID(uuidString: name) != nil else { return nil }
        let url = directory.appendingPathComponent(name)
        if let size = try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize, size >= Self.mappingThreshold,
            let mapped = try? Data(contentsOf: url, options: .alwaysMapped)
        {
            return mapped
        }
        return try? Data(contentsOf: url)
    }

    /// The file names among `rows`' values: external columns hold names as text, small values
    /// as blobs.
    static func names(in rows: [[SQLValue]]) -> [String] {
        rows.flatMap { row in
            row.compactMap { value in
                if case .text(let name) = value { name } else { nil }
            }
        }
    }

    func remove(_ names: some Sequence<String>) {
        for name in names where UUID(uuidString: name) != nil {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}

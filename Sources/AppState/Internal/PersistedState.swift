import Foundation

/// The shared workings of ``Application/StoredState`` and ``Application/FileState``: a Codable
/// value cached in a ``StateBox`` and written through to a ``StateBackend`` as JSON.
///
/// Failures never crash and never lose the in-memory value; they reach the application's logger
/// at error level, located at the state's definition.
struct PersistedState<Value: Codable & Sendable> {
    let app: Application
    /// The state's key in its backend and in log messages.
    let key: String
    /// The key of the state's cache slot, prefixed by its kind so that a ``Application/State``
    /// and a stored state registered under one id stay apart.
    let cacheKey: String
    let initial: () -> Value
    let backend: () -> any StateBackend
    /// Whether the stored JSON is base64-encoded, as AppState's files are by default.
    let isBase64Encoded: Bool
    let fileID: String
    let line: Int


    @MainActor private var box: StateBox<Value> {
        app.cache.slot(cacheKey).value(key: cacheKey) { StateBox(load(), anchor: app.anchor) }
    }

    @MainActor var value: Value {
        get { box.value }
        nonmutating set {
            box.value = newValue
            let backend = backend()
            do {
                if (newValue as? any OptionalValue)?.isNil == true {
                    try backend.remove()
                } else {
                    let json = try JSONEncoder().encode(newValue)
                    try backend.write(isBase64Encoded ? json.base64EncodedData() : json)
                }
            } catch {
                logError("could not save \(Value.self) to \(backend.location): \(error)")
            }
        }
    }

    @MainActor func reset() {
        box.value = initial()
        let backend = backend()
        do {
            try backend.remove()
        } catch {
            logError("could not remove \(backend.location): \(error)")
        }
    }

    /// The stored value; or, when there is none or it cannot be read, the initial value.
    /// A corrupt value is moved aside. A well-formed value of another type is left in place and
    /// reported, since it may belong to another registration or another version of the app.
    @MainActor private func load() -> Value {
        let backend = backend()
        let data: Data
        do {
            guard let stored = try backend.read() else { return initial() }
            data = Self.json(in: stored)
        } catch {
            logError("could not read \(backend.location), using the initial value: \(error)")
            return initial()
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            if (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) != nil {
                logError(
                    "\(backend.location) holds a value that is not a \(Value.self) (\(error)); "
                        + "using the initial value and leaving the stored one in place. "
                        + "Check that no other state shares this id.")
            } else {
                let aside = (try? backend.quarantine()) ?? "nowhere (moving it failed)"
                logError(
                    "\(backend.location) is corrupt and was moved to \(aside); using the initial value.")
            }
            return initial()
        }
    }

    /// The JSON in stored bytes: the bytes themselves, or what they decode to as base64. Base64
    /// of JSON text never parses as JSON (its first character is a letter that starts no JSON
    /// value), so the two forms cannot be confused.
    private static func json(in stored: Data) -> Data {
        if (try? JSONSerialization.jsonObject(with: stored, options: .fragmentsAllowed)) != nil { return stored }
        guard let decoded = Data(base64Encoded: stored),
            (try? JSONSerialization.jsonObject(with: decoded, options: .fragmentsAllowed)) != nil
        else { return stored }
        return decoded
    }

    @MainActor private func logError(_ message: String) {
        app.logger.value.error("\(key): \(message)", fileID: fileID, line: line)
    }
}

/// Lets generic code ask whether a value is an optional holding nil.
protocol OptionalValue {
    var isNil: Bool { get }
}

extension Optional: OptionalValue {
    var isNil: Bool { self == nil }
}

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
    let fileID: String
    let line: Int


    @MainActor private var box: StateBox<Value> {
        app.cache.slot(cacheKey).value(key: cacheKey) { StateBox(load()) }
    }

    @MainActor var value: Value {
        get { box.value }
        nonmutating set {
            box.value = newValue
            let backend = backend()
            do {
                try backend.write(JSONEncoder().encode(newValue))
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
            data = stored
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

    @MainActor private func logError(_ message: String) {
        app.logger.value.error("\(key): \(message)", fileID: fileID, line: line)
    }
}

#if canImport(Security)
import Foundation
import Security

/// Strings kept in the Keychain as generic passwords of one service, keyed by account: what
/// ``Application/SecureState`` stores through. Apple platforms only.
public struct Keychain: Sendable {
    /// The Keychain service the items belong to.
    public let service: String

    /// A Keychain of the items of `service` (the app's bundle identifier by default).
    public init(service: String = Bundle.main.bundleIdentifier ?? "AppState") {
        self.service = service
    }

    /// The string stored under `key`, or nil.
    public func string(forKey key: String) -> String? {
        var query = self.query(key)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// Stores `value` under `key`, replacing what was there. Returns whether the Keychain took it.
    @discardableResult
    public func set(_ value: String, forKey key: String) -> Bool {
        let data = Data(value.utf8)
        let status = SecItemUpdate(query(key) as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        guard status == errSecItemNotFound else { return status == errSecSuccess }
        var item = query(key)
        item[kSecValueData as String] = data
        return SecItemAdd(item as CFDictionary, nil) == errSecSuccess
    }

    /// Removes what is stored under `key`.
    @discardableResult
    public func remove(_ key: String) -> Bool {
        let status = SecItemDelete(query(key) as CFDictionary)
        return status == errSecSuccess || status == errSecItemNotFound
    }

    private func query(_ key: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
    }
}

extension Application {
    /// The Keychain ``SecureState`` uses. Override it to use another service.
    public var keychain: Dependency<Keychain> {
        dependency(Keychain(), feature: "AppState", id: "keychain")
    }

    /// A string kept in the Keychain under `feature/id`, as in AppState. Setting nil removes it.
    /// Apple platforms only.
    public struct SecureState: MutableApplicationState {
        /// The emoji for secure state in log messages.
        public static var emoji: Character { "🔑" }

        let app: Application
        let scope: Scope
        let initial: () -> String?

        /// The stored string, or the initial value when nothing is stored.
        @MainActor public var value: String? {
            get {
                app.signals.signal(for: scope.key).access()
                return app.keychain.value.string(forKey: scope.key) ?? initial()
            }
            nonmutating set {
                if let newValue {
                    app.keychain.value.set(newValue, forKey: scope.key)
                } else {
                    app.keychain.value.remove(scope.key)
                }
                app.signals.signal(for: scope.key).changed()
            }
        }

        /// Stores the initial value again (removing the item when it is nil).
        @MainActor public func reset() { value = initial() }
    }

    /// Registers a string kept in the Keychain under `feature/id`.
    public func secureState(
        initial: @autoclosure @escaping () -> String? = nil, feature: String = "App", id: String
    ) -> SecureState {
        SecureState(app: self, scope: Scope(name: feature, id: id), initial: initial)
    }

    /// Returns a secure state of the current application.
    @MainActor
    public static func secureState(_ keyPath: KeyPath<Application, SecureState>) -> SecureState {
        current[keyPath: keyPath]
    }
}

/// Reads and writes a ``Application/SecureState``: `@SecureState(\.token) var token: String?`.
@propertyWrapper
public struct SecureState {
    private let keyPath: KeyPath<Application, Application.SecureState>

    /// Wraps the secure state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.SecureState>) {
        self.keyPath = keyPath
    }

    /// The stored string.
    @MainActor public var wrappedValue: String? {
        get { Application.secureState(keyPath).value }
        nonmutating set { Application.secureState(keyPath).value = newValue }
    }
}
#endif

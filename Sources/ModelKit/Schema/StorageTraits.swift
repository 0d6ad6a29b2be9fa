import Foundation
import Synchronization

/// How SQLite's handling of a type's stored form differs from Swift's, worked out once per type.
struct StorageTraits: Sendable {
    static let plain = StorageTraits(isFloatingPoint: false, hasUnorderedStorage: false)
    private static let cache = Mutex<[ObjectIdentifier: StorageTraits]>([:])

    let isFloatingPoint: Bool
    let hasUnorderedStorage: Bool

    static func of(_ type: Any.Type) -> StorageTraits {
        if let cached = cache.withLock({ $0[ObjectIdentifier(type)] }) { return cached }
        let unwrapped = (type as? any OptionalProtocol.Type)?.wrappedType ?? type
        let traits = StorageTraits(
            isFloatingPoint: unwrapped is any BinaryFloatingPoint.Type,
            hasUnorderedStorage: unwrapped is any UnsignedInteger.Type || unwrapped == Decimal.self)
        cache.withLock { $0[ObjectIdentifier(type)] = traits }
        return traits
    }
}

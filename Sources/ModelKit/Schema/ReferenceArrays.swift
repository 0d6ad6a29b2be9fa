import Foundation

// Arrays of class references, handled as the references' bits: in unspecialized generic code,
// the collection protocols make a witness call per element.

extension Array where Element: AnyObject {
    /// Whether `object` itself is an element, comparing the references' bits: in generic code
    /// `contains(where:)` makes a witness call per element.
    func containsIdentical(_ object: AnyObject) -> Bool {
        let wanted = UInt(bitPattern: ObjectIdentifier(object))
        return withUnsafeBytes { bytes in
            (0..<count).contains { bytes.load(fromByteOffset: $0 * MemoryLayout<Element>.stride, as: UInt.self) == wanted }
        }
    }

    /// Whether the array starts with `prefix`'s elements, the same references, comparing their
    /// bits at once.
    func startsWithIdentical(_ prefix: [Element]) -> Bool {
        guard prefix.count <= count else { return false }
        guard !prefix.isEmpty else { return true }
        return withUnsafeBytes { bytes in
            prefix.withUnsafeBytes { memcmp(bytes.baseAddress!, $0.baseAddress!, $0.count) == 0 }
        }
    }
}

extension Array where Element == AnyObject {
    /// The references as `[T]`, copied at once. Each must be a `T`: an element of either array is
    /// one class reference, so no cast or generic call is made per element.
    func unsafeDowncast<T: AnyObject>(to type: T.Type) -> [T] {
        guard !isEmpty else { return [] }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.withMemoryRebound(to: AnyObject.self, capacity: count) { references in
                withUnsafeBufferPointer { references.initialize(from: $0.baseAddress!, count: count) }
            }
            initialized = count
        }
    }
}

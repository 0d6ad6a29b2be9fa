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

/// Class references gathered one at a time in unspecialized generic code, then handed over as
/// `[T]` by moving them: appending to `[T]` there would look up `Array<T>`'s metadata and call the
/// generic `append` per element, and copying an `[AnyObject]` into a `[T]` would retain each
/// reference and release it again with the first array.
final class ReferenceCollector {
    private var references: UnsafeMutablePointer<AnyObject>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        references = .allocate(capacity: capacity)
    }

    deinit {
        references.deinitialize(count: count)
        references.deallocate()
    }

    func append(_ reference: AnyObject) {
        if count == capacity { grow() }
        (references + count).initialize(to: reference)
        count += 1
    }

    private func grow() {
        let grown = UnsafeMutablePointer<AnyObject>.allocate(capacity: capacity * 2)
        grown.moveInitialize(from: references, count: count)
        references.deallocate()
        references = grown
        capacity *= 2
    }

    /// The references in the order appended, moved into a `[T]`; the collector is left empty.
    /// Each must be a `T`: a `T` and an `AnyObject` are both one class reference, so no cast or
    /// generic call is made per element.
    func take<T: AnyObject>(as type: T.Type) -> [T] {
        let taken = count
        guard taken > 0 else { return [] }
        count = 0
        return [T](unsafeUninitializedCapacity: taken) { buffer, initialized in
            buffer.baseAddress!.withMemoryRebound(to: AnyObject.self, capacity: taken) { moved in
                moved.moveInitialize(from: references, count: taken)
            }
            initialized = taken
        }
    }
}

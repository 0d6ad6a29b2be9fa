import Testing

@testable import ModelKit

/// The helpers that treat an array of class references as the references' bits.
@Suite struct ReferenceArrayTests {
    final class Object {}

    @Test func containsIdenticalFindsTheObjectItselfAndNothingElse() {
        let objects = (0..<40).map { _ in Object() }
        let other = Object()
        #expect(objects.allSatisfy { objects.containsIdentical($0) })
        #expect(!objects.containsIdentical(other))
        #expect(![Object]().containsIdentical(other))
    }

    @Test func startsWithIdenticalComparesTheLeadingReferences() {
        let objects = (0..<40).map { _ in Object() }
        #expect(objects.startsWithIdentical([]) && objects.startsWithIdentical(objects))
        #expect(objects.startsWithIdentical(Array(objects.prefix(39))))
        #expect(!Array(objects.prefix(39)).startsWithIdentical(objects), "longer than the array")
        var changed = objects
        changed[20] = Object()
        #expect(!changed.startsWithIdentical(objects) && !objects.startsWithIdentical(Array(changed.prefix(21))))
        #expect(objects.startsWithIdentical(Array(changed.prefix(20))))
    }

    @Test func unsafeDowncastKeepsEveryReferenceInOrder() {
        let objects = (0..<40).map { _ in Object() }
        let erased: [AnyObject] = objects
        let typed = erased.unsafeDowncast(to: Object.self)
        #expect(typed.count == objects.count && zip(typed, objects).allSatisfy { $0 === $1 })
        #expect([AnyObject]().unsafeDowncast(to: Object.self).isEmpty)
        weak var released: Object?
        do {
            let object = Object()
            released = object
            _ = ([object] as [AnyObject]).unsafeDowncast(to: Object.self)
        }
        #expect(released == nil, "the copy retains each reference once and releases it with the array")
    }
}

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

    @Test func aCollectorHandsOverEveryReferenceInOrderOnce() {
        let objects = (0..<40).map { _ in Object() }
        let collector = ReferenceCollector()
        for object in objects { collector.append(object) }
        let typed = collector.take(as: Object.self)
        #expect(typed.count == objects.count && zip(typed, objects).allSatisfy { $0 === $1 })
        #expect(collector.count == 0 && collector.take(as: Object.self).isEmpty)
        weak var taken: Object?
        weak var left: Object?
        do {
            let first = Object()
            let second = Object()
            (taken, left) = (first, second)
            let handedOver = ReferenceCollector()
            handedOver.append(first)
            _ = handedOver.take(as: Object.self)
            let abandoned = ReferenceCollector()  // as when a fetch throws midway
            abandoned.append(second)
        }
        #expect(taken == nil && left == nil, "each reference is retained once and released once")
    }
}

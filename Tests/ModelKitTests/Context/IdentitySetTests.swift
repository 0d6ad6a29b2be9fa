import Testing

@testable import ModelKit

@Suite struct IdentitySetTests {
    final class Object {}

    /// Random inserts and removals over thousands of objects agree with a
    /// `Set<ObjectIdentifier>` doing the same, through growth and backward shifts.
    @Test func behavesLikeASetThroughGrowthAndRemoval() {
        let random = SeededRandom(seed: 5)
        let objects = (0..<3_000).map { _ in Object() }
        var set = IdentitySet()
        var expected: Set<ObjectIdentifier> = []
        for _ in 0..<30_000 {
            let id = ObjectIdentifier(random.pick(objects))
            if random.chance(40) {
                #expect(set.remove(id) == (expected.remove(id) != nil))
            } else {
                #expect(set.insert(id) == expected.insert(id).inserted)
            }
        }
        #expect(set.count == expected.count)
        for object in objects { #expect(set.contains(ObjectIdentifier(object)) == expected.contains(ObjectIdentifier(object))) }
    }

    /// A copy keeps what the set held when it was made, whatever either side does afterwards:
    /// a transaction's snapshot of the pending models.
    @Test func aCopyIsUnchangedByTheOriginalsLaterChanges() {
        let objects = (0..<100).map { _ in Object() }
        var set = IdentitySet()
        for object in objects.prefix(50) { set.insert(ObjectIdentifier(object)) }
        var copy = set
        for object in objects.suffix(50) { set.insert(ObjectIdentifier(object)) }
        set.remove(ObjectIdentifier(objects[0]))
        copy.remove(ObjectIdentifier(objects[1]))
        #expect(copy.count == 49 && set.count == 99)
        #expect(copy.contains(ObjectIdentifier(objects[0])) && !set.contains(ObjectIdentifier(objects[0])))
        #expect(!copy.contains(ObjectIdentifier(objects[1])) && set.contains(ObjectIdentifier(objects[1])))
        #expect(!copy.contains(ObjectIdentifier(objects[99])))
        set.removeAll()
        #expect(set.isEmpty && copy.count == 49)
    }
}

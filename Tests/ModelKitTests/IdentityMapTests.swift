import Testing

@testable import ModelKit

@Suite struct IdentityMapTests {
    final class Object {}

    /// Random inserts, replacements and removals agree with a `Dictionary` doing the same.
    @Test func behavesLikeADictionaryThroughGrowthAndRemoval() {
        let entities = [Schema([TodoItem.self]).entities[0], Schema([Note.self]).entities[0]]
        let random = SeededRandom(seed: 7)
        var map = IdentityMap()
        var expected: [RowKey: Object] = [:]
        var keep: [Object] = []  // keeps every object referenced, so no sweep drops one
        for _ in 0..<20_000 {
            let key = RowKey(entity: random.pick(entities), rowID: Int64(random.next() % 3000))
            if random.chance(30) {
                #expect((map.removeValue(forKey: key) as? Object) === expected.removeValue(forKey: key))
            } else {
                let object = Object()
                keep.append(object)
                map.insert(object, for: key)
                expected[key] = object
            }
        }
        #expect(map.count == expected.count)
        for (key, object) in expected { #expect(map[key] === object) }
        withExtendedLifetime(keep) {}
    }

    @Test func insertUnlessPresentKeepsTheModelAlreadyThereAndInsertsOtherwise() {
        let entity = Schema([TodoItem.self]).entities[0]
        var map = IdentityMap()
        let first = Object()
        let second = Object()
        #expect(map.insertUnlessPresent(first, for: RowKey(entity: entity, rowID: 1)) == nil)
        #expect(map.insertUnlessPresent(second, for: RowKey(entity: entity, rowID: 1)) === first)
        #expect(map[RowKey(entity: entity, rowID: 1)] === first)
        #expect(map.count == 1)
        withExtendedLifetime([first, second]) {}
    }

    @Test func sweepDropsOnlyModelsNothingElseReferences() {
        let entity = Schema([TodoItem.self]).entities[0]
        var map = IdentityMap()
        let kept = Object()
        map.insert(kept, for: RowKey(entity: entity, rowID: 1))
        map.insert(Object(), for: RowKey(entity: entity, rowID: 2))
        map.sweep()
        #expect(map.count == 1)
        #expect(map[RowKey(entity: entity, rowID: 1)] === kept)
        #expect(map[RowKey(entity: entity, rowID: 2)] == nil)
    }
}

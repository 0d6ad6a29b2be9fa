import Testing

@testable import ModelKit

@Suite struct IdentityMapTests {
    final class Object {}

    /// Random inserts, replacements and removals agree with a `Dictionary` doing the same.
    @Test func behavesLikeADictionaryThroughGrowthAndRemoval() {
        let entities = [Schema([TodoItem.self]).entities[0], Schema([Note.self]).entities[0]]
        let random = SeededRandom(seed: 7)
        let map = IdentityMap()
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

    /// A table a reserve sized to a capacity that is not a power of two (1,336 slots for 1,000
    /// models) behaves like a `Dictionary` while full to three quarters, through probes and
    /// backward shifts that wrap around its end, and through growth past it.
    @Test func aTableSizedByAReserveBehavesLikeADictionaryWhenFull() {
        let entity = Schema([TodoItem.self]).entities[0]
        let random = SeededRandom(seed: 11)
        let map = IdentityMap()
        map.reserve(1_000, of: ObjectIdentifier(entity))
        var expected: [RowKey: Object] = [:]
        let limits: [Int64] = [.min + 1, .max, -1, 0]
        let keys = limits + (0..<996).map { _ in Int64(random.next() % 1_000_000) - 500_000 }
        for rowID in keys {
            let object = Object()
            map.insert(object, for: RowKey(entity: entity, rowID: rowID))
            expected[RowKey(entity: entity, rowID: rowID)] = object
        }
        for rowID in keys where random.chance(50) {
            let key = RowKey(entity: entity, rowID: rowID)
            #expect((map.removeValue(forKey: key) as? Object) === expected.removeValue(forKey: key))
        }
        for (key, object) in expected { #expect(map[key] === object) }
        for rowID in 1_000_000..<1_002_000 {  // past the reserve: the table doubles
            let object = Object()
            map.insert(object, for: RowKey(entity: entity, rowID: Int64(rowID)))
            expected[RowKey(entity: entity, rowID: Int64(rowID))] = object
        }
        #expect(map.count == expected.count)
        for (key, object) in expected { #expect(map[key] === object) }
        #expect(map[RowKey(entity: entity, rowID: 500_001)] == nil)
    }

    /// Reserving room, before any entry or among many, keeps every entry found and adds none.
    @Test func reservingRoomKeepsEveryEntryAndAddsNone() {
        let entity = Schema([TodoItem.self]).entities[0]
        let map = IdentityMap()
        map.reserve(0, of: ObjectIdentifier(entity))
        map.reserve(100_000, of: ObjectIdentifier(entity))
        let objects = (0..<3_000).map { _ in Object() }
        for (index, object) in objects.enumerated() { map.insert(object, for: RowKey(entity: entity, rowID: Int64(index * 7))) }
        map.reserve(50_000, of: ObjectIdentifier(entity))
        map.reserve(1, of: ObjectIdentifier(entity))
        #expect(map.count == objects.count)
        for (index, object) in objects.enumerated() { #expect(map[RowKey(entity: entity, rowID: Int64(index * 7))] === object) }
        #expect(map[RowKey(entity: entity, rowID: 1)] == nil)
    }

    @Test func insertUnlessPresentKeepsTheModelAlreadyThereAndInsertsOtherwise() {
        let entity = Schema([TodoItem.self]).entities[0]
        let map = IdentityMap()
        let first = Object()
        let second = Object()
        #expect(map.insertUnlessPresent(first, for: RowKey(entity: entity, rowID: 1)) == nil)
        #expect(map.insertUnlessPresent(second, for: RowKey(entity: entity, rowID: 1)) === first)
        #expect(map[RowKey(entity: entity, rowID: 1)] === first)
        #expect(map.count == 1)
        withExtendedLifetime([first, second]) {}
    }


    /// A place found for a key stays right while the table is unchanged, and an insert at a place
    /// the table moved on from (models made meanwhile, growth, removals, the same key) searches
    /// again: every model is findable, and one already under the key stays.
    @Test func anInsertAtAPlaceTheTableMovedOnFromSearchesAgain() {
        let entity = Schema([TodoItem.self]).entities[0]
        let random = SeededRandom(seed: 23)
        let map = IdentityMap()
        var expected: [RowKey: Object] = [:]
        for _ in 0..<5_000 {
            let key = RowKey(entity: entity, rowID: Int64(random.next() % 2_000))
            let place = map.place(of: key)
            guard case .absent = place else {
                #expect(map[key] === expected[key])
                continue
            }
            // What making a model may do to the map: load others, or the same row.
            var madeMeanwhile: Object?
            for _ in 0..<Int(random.next() % 3) {
                let other = RowKey(entity: entity, rowID: Int64(random.next() % 2_000))
                if random.chance(20) {
                    #expect((map.removeValue(forKey: other) as? Object) === expected.removeValue(forKey: other))
                } else if map[other] == nil {
                    let object = Object()
                    map.insert(object, at: map.place(of: other), for: other)
                    expected[other] = object
                    if other == key { madeMeanwhile = object }
                }
            }
            let object = Object()
            map.insert(object, at: place, for: key)
            expected[key] = madeMeanwhile ?? object
        }
        #expect(map.count == expected.count)
        for (key, object) in expected { #expect(map[key] === object) }
    }
    /// Keys in runs, in strides that land on one slot of each block, and in strides wider than the
    /// table all stay findable, and removing half of them keeps the rest findable.
    @Test(arguments: [1, 8, 1024, 1 << 40])
    func keysInStridesStayFindableThroughGrowthAndRemoval(stride: Int64) {
        let entity = Schema([TodoItem.self]).entities[0]
        let map = IdentityMap()
        let objects = (0..<5000).map { _ in Object() }
        for (index, object) in objects.enumerated() { map.insert(object, for: RowKey(entity: entity, rowID: Int64(index) * stride)) }
        for index in Swift.stride(from: 0, to: objects.count, by: 2) {
            #expect(map.removeValue(forKey: RowKey(entity: entity, rowID: Int64(index) * stride)) === objects[index])
        }
        #expect(map.count == objects.count / 2)
        for (index, object) in objects.enumerated() {
            #expect(map[RowKey(entity: entity, rowID: Int64(index) * stride)] === (index % 2 == 0 ? nil : object))
        }
    }

    @Test func sweepIfGrownWaitsUntilTheMapHasDoubledSinceTheLastSweep() {
        let entity = Schema([TodoItem.self]).entities[0]
        let map = IdentityMap()
        for rowID in 0..<4095 { map.insert(Object(), for: RowKey(entity: entity, rowID: Int64(rowID))) }
        map.sweepIfGrown()
        #expect(map.count == 4095)
        map.insert(Object(), for: RowKey(entity: entity, rowID: 4095))
        map.sweepIfGrown()
        #expect(map.isEmpty)
    }

    @Test func sweepDropsOnlyModelsNothingElseReferences() {
        let entity = Schema([TodoItem.self]).entities[0]
        let map = IdentityMap()
        let kept = Object()
        map.insert(kept, for: RowKey(entity: entity, rowID: 1))
        map.insert(Object(), for: RowKey(entity: entity, rowID: 2))
        map.sweep()
        #expect(map.count == 1)
        #expect(map[RowKey(entity: entity, rowID: 1)] === kept)
        #expect(map[RowKey(entity: entity, rowID: 2)] == nil)
    }
}

import Foundation
import Testing

@testable import ModelKit

/// A model's faults keep one to-one apart from their list: whatever is added, replaced or removed,
/// they answer as a dictionary of faults by column would.
@Suite struct FaultsTests {
    private typealias Fault = ModelStorage.Fault

    /// `Fault` is not `Equatable`: the engine only ever switches over it.
    private static func same(_ a: Fault?, _ b: Fault?) -> Bool {
        switch (a, b) {
        case (nil, nil), (.toMany?, .toMany?), (.unfetched?, .unfetched?): true
        case (.toOne(let x)?, .toOne(let y)?): x == y
        default: false
        }
    }

    @Test func aRowsOnlyToOneIsKeptApartFromTheList() {
        var faults = ModelStorage.Faults()
        faults.append(.toOne(42), at: 3)
        #expect(faults.toOneColumn == 4 && faults.toOneKey == 42)
        #expect(faults.entries.isEmpty)
        #expect(Self.same(faults[3], .toOne(42)))
        #expect(faults[2] == nil)
        faults.append(.toOne(7), at: 5)  // a second to-one goes in the list
        #expect(faults.entries.count == 1)
        #expect(Self.same(faults.removeValue(forKey: 3), .toOne(42)))
        #expect(faults[3] == nil && Self.same(faults[5], .toOne(7)))
        #expect(!faults.isEmpty)
        #expect(Self.same(faults.removeValue(forKey: 5), .toOne(7)))
        #expect(faults.isEmpty)
    }

    @Test func aToOnePastColumn254GoesInTheList() {
        var faults = ModelStorage.Faults()
        faults.append(.toOne(1), at: 254)
        faults.append(.toOne(2), at: 255)
        #expect(faults.toOneColumn == 255)
        #expect(faults.entries.count == 1)
        #expect(Self.same(faults[254], .toOne(1)) && Self.same(faults[255], .toOne(2)))
    }

    /// Random additions, replacements, removals and partial-fetch clean-ups over columns on both
    /// sides of 254, checked after each step against a dictionary. Replay a run with
    /// `FAULTS_SEED`.
    @Test func randomChangesAnswerAsADictionaryOfFaultsWould() {
        let seed = ProcessInfo.processInfo.environment["FAULTS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("FaultsTests seed \(seed) (FAULTS_SEED)")
        let random = SeededRandom(seed: seed)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        let columns = [0, 1, 2, 7, 253, 254, 255, 300]
        func randomFault() -> Fault {
            switch next(4) {
            case 0: .toMany
            case 1: .unfetched
            default: .toOne(Int64(next(1_000)) - 500)
            }
        }
        for _ in 0..<200 {
            var faults = ModelStorage.Faults()
            var reference: [Int: Fault] = [:]
            for step in 0..<60 {
                let column = columns[next(columns.count)]
                switch next(6) {
                case 0 where reference[column] == nil:
                    let fault = randomFault()
                    faults.append(fault, at: column)
                    reference[column] = fault
                case 1:
                    let fault = next(3) == 0 ? nil : randomFault()
                    faults[column] = fault
                    reference[column] = fault
                case 2:
                    let removed = faults.removeValue(forKey: column)
                    #expect(Self.same(removed, reference.removeValue(forKey: column)), "seed \(seed), step \(step)")
                case 3:
                    faults.removeUnfetched()
                    reference = reference.filter { if case .unfetched = $0.value { false } else { true } }
                case 4:
                    // Taken apart into State's fields and put together again, as ModelStorage does.
                    faults = ModelStorage.Faults(toOneColumn: faults.toOneColumn, toOneKey: faults.toOneKey, entries: faults.entries)
                default:
                    break
                }
                for column in columns {
                    #expect(Self.same(faults[column], reference[column]), "seed \(seed), step \(step), column \(column)")
                }
                let unfetched = reference.compactMap { if case .unfetched = $0.value { $0.key } else { nil } }
                #expect(Set(faults.unfetchedColumns) == Set(unfetched), "seed \(seed), step \(step)")
                #expect(faults.isEmpty == reference.isEmpty, "seed \(seed), step \(step)")
            }
        }
    }

    /// The engine's state packs into 64 bytes: the to-one kept apart costs a model eight bytes,
    /// where its list cost a child row an allocation.
    @Test func aModelsEngineStateTakesSixtyFourBytes() {
        #expect(MemoryLayout<ModelStorage.State>.size == 64)
    }
}

import Foundation
import Testing

@testable import ModelKit

/// The packed form of a transaction's changes: exact round trips, compact runs, and damage
/// caught rather than read.
@Suite struct HistoryRecordTests {
    @Test func changesRoundTripInOrderWithValuesAtTheirLimits() throws {
        var record = HistoryRecord()
        record.insert(entity: "Trip", rowID: 1)
        record.insert(entity: "Trip", rowID: 2)
        record.insert(entity: "Note", rowID: 3)
        record.insert(entity: "Trip", rowID: Int64.max)
        record.update(entity: "Trip", rowID: Int64.min, attributes: ["name", "nights", "é 名前"])
        let values: [SQLValue] = [
            .null, .integer(Int64.min), .integer(-1), .real(-0.0), .real(.infinity), .text(""), .text("a\0b"), .blob(Data()),
            .blob(Data([0, 255])),
        ]
        record.delete(entity: "Trip", rowID: 9, preserved: values.enumerated().map { ("p\($0.offset)", $0.element) })
        let changes = try HistoryRecord.decode(record.encoded())
        #expect(changes.map(\.kind) == [.insert, .insert, .insert, .insert, .update, .delete])
        #expect(changes.map(\.entity) == ["Trip", "Trip", "Note", "Trip", "Trip", "Trip"])
        #expect(changes.map(\.rowID) == [1, 2, 3, Int64.max, Int64.min, 9])
        #expect(changes[4].attributes == ["name", "nights", "é 名前"])
        #expect(changes[5].preserved == Dictionary(uniqueKeysWithValues: values.enumerated().map { ("p\($0.offset)", $0.element) }))
        let nan = try HistoryRecord.decode({ var r = HistoryRecord(); r.delete(entity: "T", rowID: 1, preserved: [("x", .real(.nan))]); return r.encoded() }())
        guard case .real(let value)? = nan.first?.preserved["x"] else {
            Issue.record("no real value")
            return
        }
        #expect(value.isNaN)
    }

    @Test func eachNameIsStoredOnceHoweverManyARecordUses() throws {
        // The first names are found by comparison, later ones by hashing: both are met again.
        let entities = (0..<20).map { "Entity\($0)" }
        var record = HistoryRecord()
        for round in 0..<3 {
            for (index, entity) in entities.enumerated() {
                record.update(entity: entity, rowID: Int64(round * 100 + index), attributes: ["title", entity])
            }
        }
        let blob = record.encoded()
        let changes = try HistoryRecord.decode(blob)
        #expect(changes.map(\.entity) == entities + entities + entities)
        #expect(changes.allSatisfy { $0.attributes == ["title", $0.entity] })
        #expect(blob.first == 21, "the record's name table: 20 entities and one attribute, each once")
    }

    @Test func consecutiveInsertsAndDeletesAreOneRunEachWhateverTheirNumber() throws {
        var record = HistoryRecord()
        for rowID in Int64(1)...100_000 { record.insert(entity: "Trip", rowID: rowID) }
        for rowID in Int64(1)...100_000 { record.delete(entity: "Trip", rowID: rowID, preserved: []) }
        let blob = record.encoded()
        #expect(blob.count < 30)
        let keys = try HistoryRecord.keys(in: blob)
        #expect(keys.inserted["Trip"] == Array(1...100_000))
        #expect(keys.deleted["Trip"] == Array(1...100_000))
        #expect(try HistoryRecord.decode(blob).count == 200_000)
    }

    @Test(arguments: [[UInt8](), [1, 4, 84, 114, 105, 112, 7], [1, 4, 84, 114, 105, 112, 0, 0], [0, 2, 1, 1, 1], [1, 1, 65, 0, 0, 0xFF]])
    func aDamagedBlobThrowsInsteadOfReadingGarbage(bytes: [UInt8]) {
        #expect(throws: HistoryRecord.Damaged.self) { try HistoryRecord.decode(Data(bytes)) }
    }
}

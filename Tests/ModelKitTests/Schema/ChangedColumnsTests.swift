import Testing

@testable import ModelKit

/// A model of seventy columns: changes past the 64th are tracked in a set, not in bits.
@Model
final class WideRecord {
    var c0 = 0
    var c1 = 0
    var c2 = 0
    var c3 = 0
    var c4 = 0
    var c5 = 0
    var c6 = 0
    var c7 = 0
    var c8 = 0
    var c9 = 0
    var c10 = 0
    var c11 = 0
    var c12 = 0
    var c13 = 0
    var c14 = 0
    var c15 = 0
    var c16 = 0
    var c17 = 0
    var c18 = 0
    var c19 = 0
    var c20 = 0
    var c21 = 0
    var c22 = 0
    var c23 = 0
    var c24 = 0
    var c25 = 0
    var c26 = 0
    var c27 = 0
    var c28 = 0
    var c29 = 0
    var c30 = 0
    var c31 = 0
    var c32 = 0
    var c33 = 0
    var c34 = 0
    var c35 = 0
    var c36 = 0
    var c37 = 0
    var c38 = 0
    var c39 = 0
    var c40 = 0
    var c41 = 0
    var c42 = 0
    var c43 = 0
    var c44 = 0
    var c45 = 0
    var c46 = 0
    var c47 = 0
    var c48 = 0
    var c49 = 0
    var c50 = 0
    var c51 = 0
    var c52 = 0
    var c53 = 0
    var c54 = 0
    var c55 = 0
    var c56 = 0
    var c57 = 0
    var c58 = 0
    var c59 = 0
    var c60 = 0
    var c61 = 0
    var c62 = 0
    var c63 = 0
    var c64 = 0
    var c65 = 0
    var c66 = 0
    var c67 = 0
    var c68 = 0
    var c69 = 0

    init() {}
}

@Suite struct ChangedColumnsTests {
    @Test func columnsPast63AreKeptWithTheOthersInOrder() {
        var columns = ChangedColumns()
        #expect(columns.isEmpty && columns.sorted == [])
        for column in [5, 0, 63] { columns.insert(column) }
        #expect(columns.sorted == [0, 5, 63] && !columns.contains(64))
        columns.insert(200)
        columns.insert(64)
        columns.insert(1)
        #expect(columns.sorted == [0, 1, 5, 63, 64, 200])
        #expect([0, 1, 5, 63, 64, 200].allSatisfy(columns.contains) && !columns.contains(2) && !columns.contains(65))
        columns.removeAll()
        #expect(columns.isEmpty && columns.sorted == [] && !columns.contains(200))
    }

    @Test func setsOfTheSameColumnsAreEqualWhateverTheOrderOfChange() {
        var first = ChangedColumns()
        var second = ChangedColumns()
        for column in [70, 3, 64] { first.insert(column) }
        for column in [3, 64, 70, 3] { second.insert(column) }
        #expect(first == second && first.hashValue == second.hashValue)
        var fewer = ChangedColumns()
        fewer.insert(3)
        #expect(fewer != first)
    }

    @Test func changesPastTheSixtyFourthColumnAreSavedAndOnlyThose() throws {
        let container = try inMemoryContainer(for: WideRecord.self)
        let context = ModelContext(container)
        let record = WideRecord()
        context.insert(record)
        try context.save()
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        record.c1 = 1
        record.c64 = 64
        record.c69 = 69
        #expect(record.hasChanges)
        try context.save()
        #expect(statements.contains("UPDATE \"WideRecord\" SET \"c1\" = ?, \"c64\" = ?, \"c69\" = ? WHERE \"_pk\" = ?"))
        #expect(!record.hasChanges)
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<WideRecord>()).first)
        #expect([stored.c0, stored.c1, stored.c63, stored.c64, stored.c68, stored.c69] == [0, 1, 0, 64, 0, 69])
    }

    /// Rows changed differently in one save, interleaved, each write their own columns and record
    /// their own attributes in the history: the save's cache of update statements (the last one
    /// used, the others by entity and columns) never hands a row another set's statement.
    @Test func rowsChangedDifferentlyInOneSaveWriteTheirOwnColumns() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("seed \(seed) rowsChangedDifferentlyInOneSaveWriteTheirOwnColumns")
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        let properties: [(name: String, path: ReferenceWritableKeyPath<WideRecord, Int>)] = [
            ("c0", \.c0), ("c1", \.c1), ("c2", \.c2), ("c64", \.c64), ("c69", \.c69),
        ]
        let container = try inMemoryContainer(for: WideRecord.self)
        let context = ModelContext(container)
        let records = (0..<60).map { _ in WideRecord() }
        for record in records { context.insert(record) }
        try context.save()
        var expected: [[Int]] = Array(repeating: Array(repeating: 0, count: properties.count), count: records.count)
        var changed: [Set<String>] = Array(repeating: [], count: records.count)
        for (row, record) in records.enumerated() {
            // One of three sets of columns, or one of its own, so that runs break and come back.
            let set = next(4) == 3 ? (0..<properties.count).filter { _ in next(2) == 0 } : [[0], [1, 3], [2, 4]][next(3)]
            for column in set {
                let value = row * 100 + column + 1
                record[keyPath: properties[column].path] = value
                expected[row][column] = value
                changed[row].insert(properties[column].name)
            }
        }
        try context.save()
        let stored = Dictionary(
            uniqueKeysWithValues: try ModelContext(container).fetch(FetchDescriptor<WideRecord>()).map { ($0.persistentModelID, $0) })
        let values = records.map { record in properties.map { stored[record.persistentModelID]?[keyPath: $0.path] ?? -1 } }
        #expect(values == expected, "seed \(seed)")
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let updates = try #require(history.last).changes.compactMap { change -> (PersistentIdentifier, Set<String>)? in
            guard case .update(let update as DefaultHistoryUpdate<WideRecord>) = change else { return nil }
            let names = update.updatedAttributes.map { path in
                properties.first { ($0.path as AnyKeyPath) == (path as AnyKeyPath) }?.name ?? "?"
            }
            return (update.changedPersistentIdentifier, Set(names))
        }
        let recorded: [PersistentIdentifier: Set<String>] = Dictionary(updates, uniquingKeysWith: { first, _ in first })
        for (row, record) in records.enumerated() where !changed[row].isEmpty {
            let names: Set<String> = recorded[record.persistentModelID] ?? []
            #expect(names == changed[row], "row \(row), seed \(seed)")
        }
        #expect(updates.count == changed.filter { !$0.isEmpty }.count, "seed \(seed)")
    }
}

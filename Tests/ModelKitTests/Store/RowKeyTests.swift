import Foundation
import TestSupport
import Testing

@testable import ModelKit

/// Primary keys on SQLite are handed out by the engine (``RowKeyDispenser``), never reused.
@Suite struct RowKeyTests {
    private func insert(_ titles: [String], into container: ModelContainer) throws -> [Int64] {
        let context = ModelContext(container)
        let items = titles.map { TodoItem(title: $0) }
        for item in items { context.insert(item) }
        try context.save()
        return items.map { $0.persistentModelID.rowID! }
    }

    private func deleteAll(_ keys: [Int64], from container: ModelContainer) throws {
        let context = ModelContext(container)
        for item in try context.fetch(FetchDescriptor<TodoItem>()) where keys.contains(item.persistentModelID.rowID!) {
            context.delete(item)
        }
        try context.save()
    }

    @Test func newTablesHaveAPlainIntegerKeyAndKeysFollowOneAnother() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        #expect(try insert(["a", "b", "c"], into: container) == [1, 2, 3])
        #expect(try insert(["d"], into: container) == [4])
        let ddl = try file.sql("SELECT sql FROM sqlite_master WHERE name = 'TodoItem'")[0][0]
        #expect(ddl.contains(#""_pk" INTEGER PRIMARY KEY"#) && !ddl.contains("AUTOINCREMENT"))
    }

    @Test(arguments: [false, true])
    func deletingTheNewestRowsNeverGivesTheirKeysToNewRows(reopening: Bool) throws {
        let file = try TemporaryStore()
        var container = try file.container(for: TodoItem.self)
        let first = try insert(["a", "b", "c"], into: container)
        try deleteAll([first[1], first[2]], from: container)
        #expect(try file.sql(#"SELECT max("_pk") FROM TodoItem"#) == [["1"]])
        if reopening { container = try file.container(for: TodoItem.self) }
        #expect(try insert(["d"], into: container) == [4])
    }

    /// A save deletes before it inserts: the newest row it deletes, whose key the writer's last
    /// save handed over as SQLite's next pick, keeps its key to itself.
    @Test func aSaveDeletingTheNewestRowGivesItsKeyToNoRowItInserts() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        let context = ModelContext(container)
        let (kept, newest) = (TodoItem(title: "kept"), TodoItem(title: "newest"))
        context.insert(kept)
        context.insert(newest)
        try context.save()
        #expect(newest.persistentModelID.rowID == 2)
        context.delete(newest)
        let added = TodoItem(title: "added")
        context.insert(added)
        try context.save()
        #expect(added.persistentModelID.rowID == 3)
    }

    /// The writer's saves hand their next keys to the next save, which reads no largest key
    /// while nothing else changed the database.
    @Test func aSaveAfterTheWritersLastSaveReadsNoLargestKey() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        context.insert(TodoItem(title: "a"))
        try context.save()
        let largestKey = #"SELECT coalesce((SELECT max("_pk")"#
        #expect(statements.contains { $0.contains(largestKey) })
        statements.removeAll()
        let next = TodoItem(title: "b")
        context.insert(next)
        try context.save()
        #expect(!statements.contains { $0.contains(largestKey) })
        #expect(next.persistentModelID.rowID == 2)
    }

    /// Another program's commit between two saves moves SQLite's data version: the keys handed
    /// over are dropped and read again, so neither its row's key nor a key past its mark is
    /// given out again.
    @Test(arguments: [false, true])
    func anotherProgramsCommitBetweenSavesIsReadBeforeTheNextKey(raisingTheMark: Bool) throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        #expect(try insert(["a"], into: container) == [1])
        let other = try RawConnection(path: file.url.path)
        try other.execute(#"INSERT INTO "TodoItem" ("title", "isComplete", "priority") VALUES ('theirs', 0, 0)"#)
        if raisingTheMark {
            try other.execute(#"DELETE FROM "TodoItem" WHERE "title" = 'theirs'"#)
            try other.execute("UPDATE \(Migrator.storeTable) SET value = '9' WHERE key = 'lastKey:TodoItem'")
        }
        #expect(try insert(["b"], into: container) == [raisingTheMark ? 10 : 3])
    }

    /// A save that deletes rows hands no keys over: the newest row may be gone, and SQLite
    /// would give its key to a row inserted without one. (The save that deletes also inserts a
    /// row of another table, so that it takes up the keys the save before handed over.)
    @Test func aSaveThatDeletesTheNewestRowHandsNoKeysOver() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self, Account.self)
        let context = ModelContext(container)
        let (a, b, c) = (TodoItem(title: "a"), TodoItem(title: "b"), TodoItem(title: "c"))
        context.insert(a)
        context.insert(b)
        try context.save()
        context.insert(c)
        try context.save()
        context.delete(b)
        context.delete(c)
        context.insert(Account(code: "x", balance: 1))
        try context.save()
        let d = TodoItem(title: "d")
        context.insert(d)
        try context.save()
        #expect(d.persistentModelID.rowID == 4)
        #expect(try file.sql(#"SELECT "_pk", "title" FROM "TodoItem""#) == [["1", "a"], ["4", "d"]])
    }

    /// A new row whose key is the table's largest plus one, the key SQLite gives a row inserted
    /// without one, is inserted without it (SQLite then need not search the table for the key).
    /// After the newest rows are deleted, and for models with unique attributes (an upsert may
    /// leave a key unused), the key is bound.
    @Test func aRowIsInsertedWithoutItsKeyWhenSQLiteWouldPickTheSame() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self, Account.self)
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let items = [TodoItem(title: "a"), TodoItem(title: "b")]
        for item in items { context.insert(item) }
        context.insert(Account(code: "x", balance: 1))
        try context.save()
        #expect(items.map { $0.persistentModelID.rowID } == [1, 2])
        #expect(statements.contains { $0.hasPrefix(#"INSERT INTO "TodoItem" ("title""#) })
        #expect(statements.contains { $0.hasPrefix(#"INSERT INTO "Account" ("_pk""#) })
        context.delete(items[1])
        try context.save()
        statements.removeAll()
        let next = TodoItem(title: "c")
        context.insert(next)
        try context.save()
        #expect(next.persistentModelID.rowID == 3)
        #expect(statements.contains { $0.hasPrefix(#"INSERT INTO "TodoItem" ("_pk""#) })
    }

    /// A table another program filled up to the largest key there is: a save that needs a key
    /// past it throws a typed error and writes nothing, where handing out the key would overflow.
    /// The largest key itself still goes to a row.
    @Test(arguments: [Int64.max, Int64.max - 1])
    func aTableThatUsedTheLargestKeyRefusesMoreRows(largest: Int64) throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        _ = try insert(["a"], into: container)
        let columns = #""_pk", "title", "isComplete", "priority""#
        _ = try rawSQL(#"INSERT INTO "TodoItem" (\#(columns)) VALUES (\#(largest), 'z', 0, 0)"#, at: file.url)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "one"))
        context.insert(TodoItem(title: "two"))
        #expect {
            try context.save()
        } throws: { error in
            guard case ModelKitError.invalidSchema(let entity, let reason) = error else { return false }
            return entity == "TodoItem" && reason.contains("largest primary key")
        }
        #expect(try file.sql(#"SELECT count(*) FROM "TodoItem""#) == [["2"]])
        guard largest < .max else { return }
        #expect(try insert(["last"], into: container) == [.max])
    }

    /// Models a save inserts because inserted models refer to them take keys in the order their
    /// owners were inserted, so the rows, and the foreign keys pointing at the owners, are
    /// appended in order.
    @Test func relatedModelsTakeKeysInTheOrderOfTheirOwners() throws {
        let file = try TemporaryStore()
        let context = ModelContext(try file.container(for: Pallet.self, Parcel.self))
        let pallets = (0..<3).map { index in
            Pallet(name: "\(index)", parcels: (0..<3).map { Parcel(label: "\(index).\($0)") })
        }
        for pallet in pallets { context.insert(pallet) }
        try context.save()
        let rows = try file.sql(#"SELECT "label", "pallet" FROM "Parcel" ORDER BY "_pk""#)
        #expect(rows.map { $0[0] } == ["0.0", "0.1", "0.2", "1.0", "1.1", "1.2", "2.0", "2.1", "2.2"])
        #expect(rows.map { $0[1] } == ["1", "1", "1", "2", "2", "2", "3", "3", "3"])
    }

    @Test func deleteAllDataKeepsTheKeysHandedOut() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        _ = try insert(["a", "b"], into: container)
        try container.erase()
        #expect(try insert(["c"], into: ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: file.url))) == [3])
    }

    @Test func twoContainersOnOneFileTakeTurnsWithoutSharingAKey() throws {
        let file = try TemporaryStore()
        let one = try file.container(for: TodoItem.self)
        let other = try file.container(for: TodoItem.self)
        var keys: [Int64] = []
        for round in 0..<3 {
            keys += try insert(["one \(round)"], into: one)
            keys += try insert(["other \(round)", "other \(round)'"], into: other)
        }
        try deleteAll([keys.last!], from: one)
        keys += try insert(["last"], into: one)
        #expect(keys == Array(1...10))
    }

    /// A store whose table was made with `AUTOINCREMENT` (before the engine handed out keys) has
    /// a `sqlite_sequence` entry that may be ahead of its rows: new keys come after it.
    @Test func aTableMadeWithAutoincrementContinuesAfterItsSequence() throws {
        let file = try TemporaryStore()
        let container = try file.container(for: TodoItem.self)
        _ = try insert(["a"], into: container)
        let connection = try RawConnection(path: file.url.path)
        try connection.execute(
            """
            CREATE TABLE legacy (x INTEGER PRIMARY KEY AUTOINCREMENT);
            INSERT INTO sqlite_sequence (name, seq) VALUES ('TodoItem', 41);
            """)
        #expect(try insert(["b"], into: container) == [42])
    }

    /// Two processes saving to one file at once each take keys inside their write transaction:
    /// no save meets a key the other took (an explicit key that collided would fail the save).
    @Test func twoProcessesSavingAtOnceNeverTakeTheSameKey() throws {
        let store = try TemporaryStore()
        _ = try store.container(for: Entry.self)  // made first, so the writers do not race to make it
        let processes = try (0..<2).map { _ in
            try ChildProcess(ChildProcess.product("modelkit-crash-writer"), arguments: [store.url.path, "150"], standardOutput: .discard)
        }
        #expect(processes.map { $0.waitUntilExit() } == [.exit(0), .exit(0)])
        let keys = try store.sql(#"SELECT "_pk" FROM Entry"#).map { Int($0[0])! }
        #expect(keys.count == 2 * 150 * 20)
        #expect(Set(keys).count == keys.count)
    }
}

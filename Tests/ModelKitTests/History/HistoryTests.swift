import Foundation
@testable import ModelKit
import Testing

@Model final class Trip {
    @Attribute(.preserveValueOnDeletion) var name: String
    var nights: Int
    @Attribute(.preserveValueOnDeletion) var note: String?

    init(name: String, nights: Int, note: String? = nil) {
        self.name = name
        self.nights = nights
        self.note = note
    }
}

typealias Transactions = HistoryDescriptor<DefaultHistoryTransaction>

/// What a change is, for comparing a transaction's changes with what a test expects.
private func describe(_ change: HistoryChange) -> String {
    switch change {
    case .insert(let insert): "insert \(insert.changedPersistentIdentifier)"
    case .update(let update): "update \(update.changedPersistentIdentifier)"
    case .delete(let delete): "delete \(delete.changedPersistentIdentifier)"
    }
}

/// SwiftData's history API on ModelKit stores: one transaction per save, in the save's SQLite
/// transaction, read by any container, resumable by token.
@Suite struct HistoryTests {
    @Test(arguments: StoreKind.withPostgres)
    func eachSaveRecordsOneTransactionWithItsDeletesInsertsAndUpdatesInTheOrderWritten(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Trip.self)
        let context = ModelContext(container)
        let kept = Trip(name: "Lisbon", nights: 3)
        let dropped = Trip(name: "Oslo", nights: 2, note: "cold")
        context.insert(kept)
        context.insert(dropped)
        try context.save()
        let droppedID = dropped.persistentModelID
        kept.nights = 4
        context.delete(dropped)
        let added = Trip(name: "Porto", nights: 1)
        context.insert(added)
        try context.save()

        let history = try context.fetchHistory(Transactions())
        try #require(history.count == 2)
        #expect(history[0].changes.map(describe) == ["insert \(kept.persistentModelID)", "insert \(droppedID)"])
        // In the order written: deletes first, so that their unique values are free for the rest.
        #expect(history[1].changes.map(describe) == ["delete \(droppedID)", "insert \(added.persistentModelID)", "update \(kept.persistentModelID)"])
        guard case .update(let update as DefaultHistoryUpdate<Trip>) = history[1].changes[2] else {
            Issue.record("the third change is not an update of a Trip")
            return
        }
        #expect(update.updatedAttributes.count == 1)
        #expect(update.updatedAttributes.first.map { $0 == \Trip.nights } == true)
        guard case .delete(let deletion as DefaultHistoryDelete<Trip>) = history[1].changes[0] else {
            Issue.record("the first change is not a delete of a Trip")
            return
        }
        #expect(deletion.tombstone[\.name] as? String == "Oslo")
        #expect(deletion.tombstone[\.note] as? String == "cold")
        #expect(deletion.tombstone[\.nights] == nil, "nights is not preserved")
        #expect(history[0].token < history[1].token)
        #expect(history[1].changes.allSatisfy { $0.changedPersistentIdentifier.storeIdentifier == history[1].storeIdentifier })
    }

    @Test(arguments: StoreKind.withPostgres) func tokensResumeAReaderWhereItLeftOffAfterAJSONRoundTrip(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Trip.self))
        for name in ["a", "b", "c"] {
            context.insert(Trip(name: name, nights: 1))
            try context.save()
        }
        let all = try context.fetchHistory(Transactions())
        #expect(all.map(\.token) == all.map(\.token).sorted())
        let kept = try JSONEncoder().encode(all[1].token)
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: kept)
        #expect(token == all[1].token)
        let rest = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > token }))
        #expect(rest.map(\.transactionIdentifier) == [all[2].transactionIdentifier])
        context.insert(Trip(name: "d", nights: 1))
        try context.save()
        let next = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > token }))
        #expect(next.count == 2)
    }

    @Test(arguments: StoreKind.withPostgres) func anOptionalTokenInAPredicateReadsAllOrWhatFollowsIt(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Trip.self))
        for name in ["a", "b"] {
            context.insert(Trip(name: name, nights: 1))
            try context.save()
        }
        func transactions(after token: DefaultHistoryToken?) throws -> [DefaultHistoryTransaction] {
            try context.fetchHistory(Transactions(predicate: #Predicate { token == nil || $0.token > token! }))
        }
        let all = try transactions(after: nil)
        #expect(all.count == 2)
        #expect(try transactions(after: all[0].token).map(\.token) == [all[1].token])
        #expect(try transactions(after: all[1].token).isEmpty)
    }

    @Test func historyIsReadByASecondContainerOnTheSameFileAndAfterReopening() throws {
        let store = try TemporaryStore()
        var written: [DefaultHistoryTransaction] = []
        do {
            let context = ModelContext(try store.container(for: Trip.self))
            context.author = "importer"
            context.insert(Trip(name: "Rome", nights: 2))
            try context.save()
            written = try context.fetchHistory(Transactions())
            let other = ModelContext(try store.container(for: Trip.self))
            #expect(try other.fetchHistory(Transactions()) == written)
        }
        let reopened = ModelContext(try store.container(for: Trip.self))
        let read = try reopened.fetchHistory(Transactions())
        #expect(read == written)
        #expect(read.first?.author == "importer")
        #expect(read.first?.token == written.first?.token)
        #expect(read.first?.changes.map(describe) == written.first?.changes.map(describe))
    }

    @Test(arguments: StoreKind.withPostgres) func authorPredicatesSelectTransactionsInSQL(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Trip.self)
        for author in ["sync", nil, "widget"] {
            let context = ModelContext(container)
            context.author = author
            context.insert(Trip(name: author ?? "app", nights: 1))
            try context.save()
        }
        let reader = ModelContext(container)
        var statements: [String] = []
        reader.statementTrace = { statements.append($0) }
        #expect(try reader.fetchHistory(Transactions(predicate: #Predicate { $0.author == "sync" })).map(\.author) == ["sync"])
        #expect(statements.last?.contains(#"("author""#) == true, "the predicate runs in SQL")
        #expect(try reader.fetchHistory(Transactions(predicate: #Predicate { $0.author != "sync" })).map(\.author) == [nil, "widget"])
        #expect(try reader.fetchHistory(Transactions(predicate: #Predicate { $0.author == nil })).count == 1)
    }

    @Test(arguments: StoreKind.withPostgres) func sortingLimitsAndTimestampsWork(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Trip.self))
        let before = Date()
        for name in ["a", "b", "c"] {
            context.insert(Trip(name: name, nights: 1))
            try context.save()
        }
        var newest = Transactions(sortBy: [SortDescriptor(\.token, order: .reverse)])
        newest.fetchLimit = 1
        let all = try context.fetchHistory(Transactions())
        #expect(try context.fetchHistory(newest) == [all[2]])
        #expect(try context.fetchHistory(Transactions(predicate: #Predicate { $0.timestamp >= before })).count == 3)
        #expect(all.allSatisfy { $0.timestamp >= before && $0.timestamp <= Date() })
        // A predicate on the changes has no SQL translation: it runs in Swift, with the same answer.
        #expect(try context.fetchHistory(Transactions(predicate: #Predicate { $0.changes.count == 1 })).count == 3)
    }

    @Test(arguments: StoreKind.withPostgres) func deleteHistoryRemovesOldTransactionsAndLeavesTheData(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Trip.self))
        for name in ["a", "b", "c"] {
            context.insert(Trip(name: name, nights: 1))
            try context.save()
        }
        let all = try context.fetchHistory(Transactions())
        let first = all[0].token
        let second = all[1].token
        try context.deleteHistory(Transactions(predicate: #Predicate { $0.token <= second }))
        #expect(try context.fetchHistory(Transactions()) == [all[2]])
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
        // A reader that stopped at the second transaction missed nothing; one that stopped at the first did.
        #expect(try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > second })).count == 1)
        #expect(throws: SwiftDataError.historyTokenExpired) { try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > first })) }
        context.insert(Trip(name: "d", nights: 1))
        try context.save()
        #expect(try context.fetchHistory(Transactions()).first?.token == all[2].token, "tokens are never reused")
        #expect(try context.fetchHistory(Transactions()).last.map { $0.token > all[2].token } == true)
    }

    @Test(arguments: StoreKind.withPostgres) func aBatchDeleteRecordsItsDeletionsWithTombstones(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let context = ModelContext(try store.container(for: Trip.self))
        for (name, nights) in [("Lyon", 1), ("Nice", 5), ("Metz", 7)] { context.insert(Trip(name: name, nights: nights)) }
        try context.save()
        try context.delete(model: Trip.self, where: #Predicate { $0.nights > 2 })
        let last = try #require(try context.fetchHistory(Transactions()).last)
        let names = last.changes.compactMap { change -> String? in
            guard case .delete(let deletion as DefaultHistoryDelete<Trip>) = change else { return nil }
            return deletion.tombstone[\.name] as? String
        }
        #expect(names.sorted() == ["Metz", "Nice"])
        #expect(last.changes.count == 2)
    }

    @Test(arguments: StoreKind.withPostgres) func deleteAllDataDeletesTheHistoryAndExpiresOlderTokens(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Trip.self)
        let context = ModelContext(container)
        context.insert(Trip(name: "a", nights: 1))
        try context.save()
        let token = try #require(try context.fetchHistory(Transactions()).last?.token)
        try container.erase()
        #expect(try context.fetchHistory(Transactions()).isEmpty)
        #expect {
            try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > token }))
        } throws: { error in
            if case .historyTokenExpired(token)? = modelKitError(error) { return true }
            return false
        }
    }

    /// Tokens are never given again, not after the newest transactions are deleted, and not
    /// after the store is opened again.
    @Test(arguments: StoreKind.allCases)
    func deletingTheNewestTransactionsNeverGivesTheirTokensAgain(kind: StoreKind) throws {
        let store = try TestStore(kind)
        var container = try store.container(for: Trip.self)
        var context = ModelContext(container)
        for name in ["a", "b"] {
            context.insert(Trip(name: name, nights: 1))
            try context.save()
        }
        let newest = try #require(try context.fetchHistory(Transactions()).last?.token)
        try context.deleteHistory(Transactions())
        if kind == .onDisk {
            container = try store.container(for: Trip.self)
            context = ModelContext(container)
        }
        context.insert(Trip(name: "c", nights: 1))
        try context.save()
        let next = try #require(try context.fetchHistory(Transactions()).first?.token)
        #expect(next.value == newest.value + 1)
    }

    /// The writer binds the next token while only its own saves committed since its last, and
    /// looks the newest up again after another program's commit (also when a commit of its own
    /// without history found it), a deletion of the history or an erase (other commits of the
    /// writer): tokens follow one another and are never given twice.
    @Test func theNextTokenTheWriterKnowsFollowsOtherCommitsAndDeletions() throws {
        let file = try TemporaryStore()
        let context = ModelContext(try file.container(for: Trip.self))
        func save(_ name: String) throws -> Int64 {
            context.insert(Trip(name: name, nights: 1))
            try context.save()
            return try #require(try context.fetchHistory(Transactions()).last?.token.value)
        }
        let first = try save("a")
        #expect(try save("b") == first + 1)
        let hex = { () -> String in
            var record = HistoryRecord()
            record.insert(entity: "Trip", rowID: 1000)
            return record.encoded().map { String(format: "%02X", $0) }.joined()
        }()
        _ = try file.sql(
            "INSERT INTO _modelkit_history (token, timestamp, author, bundle, process, changes) VALUES (\(first + 5), 0, 'other', 'other', '1', x'\(hex)')")
        #expect(try save("c") == first + 6, "after the newest token another program wrote")
        #expect(try save("d") == first + 7)
        try context.deleteHistory(Transactions())
        #expect(try save("e") == first + 8, "after the newest token deleted")
        #expect(try save("f") == first + 9)
        // Another program's token, then a commit of this process that records no history: the
        // writer learns of the other token with it, and must not bind its own newest plus one.
        _ = try file.sql(
            "INSERT INTO _modelkit_history (token, timestamp, author, bundle, process, changes) VALUES (\(first + 10), 0, 'other', 'other', '1', x'\(hex)')")
        try context.delete(model: Trip.self, where: #Predicate { $0.name == "nobody" })
        #expect(try save("g") == first + 11, "after the other program's token, learnt by a commit without history")
        // Erasing the store expires every token given out: the next comes after the newest plus one.
        try context.container.erase()
        context.insert(Trip(name: "h", nights: 1))
        try context.save()
        #expect(try context.fetchHistory(Transactions()).last?.token.value == first + 13)
    }

    /// Erasing expires every token given out, the newest plus one included: the writer's next
    /// save, which knew its newest token, takes the one after, in memory as on disk.
    @Test(arguments: [StoreKind.inMemory, .onDisk])
    func aSaveAfterAnEraseTakesATokenPastTheExpiredOnes(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Trip.self)
        let context = ModelContext(container)
        context.insert(Trip(name: "a", nights: 1))
        try context.save()
        let newest = try #require(try context.fetchHistory(Transactions()).last?.token.value)
        try container.erase()
        context.insert(Trip(name: "b", nights: 1))
        try context.save()
        #expect(try context.fetchHistory(Transactions()).map(\.token.value) == [newest + 2])
    }

    /// A store whose history table was made with `AUTOINCREMENT` goes on after its newest token,
    /// and the tokens of a new store follow one another.
    @Test func aHistoryMadeWithAutoincrementGoesOnAfterItsNewestToken() throws {
        let file = try TemporaryStore()
        do {
            let context = ModelContext(try file.container(for: Trip.self))
            context.insert(Trip(name: "a", nights: 1))
            try context.save()
            #expect(try context.fetchHistory(Transactions()).map(\.token.value) == [1])
        }
        _ = try file.sql("ALTER TABLE _modelkit_history RENAME TO made_before")
        _ = try file.sql(
            """
            CREATE TABLE _modelkit_history ("token" INTEGER PRIMARY KEY AUTOINCREMENT, "timestamp" REAL NOT NULL, "author" TEXT,
                "bundle" TEXT NOT NULL, "process" TEXT NOT NULL, "changes" BLOB NOT NULL)
            """)
        _ = try file.sql(#"INSERT INTO _modelkit_history SELECT 41, "timestamp", "author", "bundle", "process", "changes" FROM made_before"#)
        _ = try file.sql("DROP TABLE made_before")
        let context = ModelContext(try file.container(for: Trip.self))
        context.insert(Trip(name: "b", nights: 1))
        try context.save()
        #expect(try context.fetchHistory(Transactions()).map(\.token.value) == [41, 42])
        #expect(try file.sql("SELECT seq FROM sqlite_sequence WHERE name = '_modelkit_history'") == [["42"]])
    }

    @Test func aTokenOfAnotherStoreIsRefused() throws {
        let one = ModelContext(try inMemoryContainer(for: Trip.self))
        one.insert(Trip(name: "a", nights: 1))
        try one.save()
        let token = try #require(try one.fetchHistory(Transactions()).last?.token)
        let other = ModelContext(try inMemoryContainer(for: Trip.self))
        #expect {
            try other.fetchHistory(Transactions(predicate: #Predicate { $0.token > token }))
        } throws: { error in
            if case .historyTokenOfAnotherStore? = modelKitError(error) { return true }
            return false
        }
    }

    @Test(arguments: StoreKind.withPostgres) func aSaveThatFailsRecordsNoHistory(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Trip.self)
        let a = ModelContext(container)
        let trip = Trip(name: "a", nights: 1)
        a.insert(trip)
        try a.save()
        let b = ModelContext(container)
        b.delete(try #require(b.model(for: trip.persistentModelID) as? Trip))
        try b.save()
        trip.nights = 2
        #expect(throws: ModelKitError.self) { try a.save() }
        #expect(try a.fetchHistory(Transactions()).count == 2)
    }

    @Test func aDamagedRecordIsATypedErrorNotACrash() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: Trip.self))
        context.insert(Trip(name: "a", nights: 1))
        try context.save()
        _ = try store.sql("UPDATE _modelkit_history SET changes = x'0105'")
        let reader = ModelContext(try store.container(for: Trip.self))
        #expect {
            try reader.fetchHistory(Transactions())
        } throws: { error in
            if case .storedValueMismatch(entity: "_modelkit_history", property: "changes", _, _)? = modelKitError(error) { return true }
            return false
        }
    }

    @Test func changesOfAnEntityTheSchemaNoLongerHasAreMissingModelChanges() throws {
        let store = try TemporaryStore()
        do {
            let context = ModelContext(try store.container(for: Trip.self, TodoItem.self))
            context.insert(TodoItem(title: "gone later"))
            try context.save()
        }
        let history = try ModelContext(try store.container(for: Trip.self)).fetchHistory(Transactions())
        guard case .insert(let insert)? = history.first?.changes.first else {
            Issue.record("no insert recorded")
            return
        }
        #expect(insert is DefaultHistoryInsert<MissingModel>)
        #expect(insert.changedPersistentIdentifier.entityName == "TodoItem")
    }
}

/// A model with a unique attribute: its inserts take the upsert path.
@Model final class Badge {
    @Attribute(.unique) var code: String
    var holder: String
    init(code: String, holder: String) {
        self.code = code
        self.holder = holder
    }
}

@Suite struct UniqueInsertHistoryTests {
    /// On PostgreSQL a model with one unique attribute is upserted at once; its save had recorded
    /// no history, so other instances and history readers never saw those inserts.
    @Test(arguments: StoreKind.withPostgres) func insertsAndUpsertsOfUniqueModelsAreInTheHistory(kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Badge.self)
        let context = ModelContext(container)
        let first = Badge(code: "A", holder: "Ada")
        context.insert(first)
        try context.save()
        let other = ModelContext(container)
        other.insert(Badge(code: "A", holder: "Alan"))  // the same code: updates the stored row
        try other.save()

        let transactions = try ModelContext(container).fetchHistory(Transactions())
        #expect(transactions.count == 2)
        let changes = transactions.map { $0.changes.map(describe) }
        #expect(changes == [["insert \(first.persistentModelID)"], ["update \(first.persistentModelID)"]])
        guard case .update(let update as DefaultHistoryUpdate<Badge>)? = transactions.last?.changes.first else {
            Issue.record("the upsert is not an update of a Badge")
            return
        }
        #expect(update.updatedAttributes.contains(\Badge.holder))
    }
}

import Foundation
import ModelKit
import ModelKitPostgres
import Testing

@Model final class Member {
    @Attribute(.unique) var email: String
    @Attribute(.unique) var handle: String
    var name: String
    init(email: String, handle: String, name: String) {
        self.email = email
        self.handle = handle
        self.name = name
    }
}

/// The same models, fetches and predicates on PostgreSQL as on SQLite, and the same answers.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresStoreTests {
    @Test func aContainerOfASQLiteAndAPostgreSQLConfigurationKeepsEachsModelsInItsOwnDatabase() throws {
        let database = PostgresTestDatabase()
        let file = try TemporaryStore()
        let shared = PostgresConfiguration(url: database.url, name: "Shared", schema: Schema([TodoItem.self]))
        let local = ModelConfiguration("Local", schema: Schema([Note.self]), url: file.url)
        let container = try ModelContainer(for: TodoItem.self, Note.self, configurations: shared, local)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "on the server"))
        context.insert(Note(text: "on this machine"))
        try context.save()
        #expect(try database.rows("SELECT title FROM \"TodoItem\"") == [["on the server"]])
        #expect(try file.sql("SELECT text FROM Note") == [["on this machine"]])
        #expect(try file.sql("SELECT name FROM sqlite_master WHERE name = 'TodoItem'").isEmpty)
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<TodoItem>()).map(\.title) == ["on the server"])
        #expect(try reader.fetch(FetchDescriptor<Note>()).map(\.text) == ["on this machine"])
    }

    @Test func modelsRoundTripThroughInsertFetchUpdateAndDelete() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        let milk = TodoItem(title: "Buy milk")
        context.insert(milk)
        context.insert(TodoItem(title: "Walk the dog", isComplete: true))
        try context.save()
        #expect(!milk.persistentModelID.isTemporary)

        let reader = ModelContext(container)
        let open = try reader.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { !$0.isComplete }, sortBy: [SortDescriptor(\.title)]))
        #expect(open.map(\.title) == ["Buy milk"])
        open[0].priority = 3
        try reader.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.priority == 3 })).count == 1)
        reader.delete(open[0])
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 1)
    }

    /// The README's configuration line, with this test's schema.
    @Test func theReadmeConfigurationLineOpensAStoreThatSurvivesANewContainer() throws {
        let database = PostgresTestDatabase()
        let url = database.url
        do {
            let container = try ModelContainer(for: TodoItem.self, configurations: PostgresConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(TodoItem(title: "kept"))
            try context.save()
        }
        let container = try ModelContainer(for: TodoItem.self, configurations: PostgresConfiguration(url: url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title) == ["kept"])
    }

    @Test func automaticMigrationAddsATableAndAColumnOnPostgres() throws {
        let database = PostgresTestDatabase()
        do {
            let context = ModelContext(try database.container(for: TodoItem.self))
            context.insert(TodoItem(title: "old"))
            try context.save()
        }
        try database.execute("ALTER TABLE \"TodoItem\" DROP COLUMN \"priority\"")
        try database.execute("DELETE FROM _modelkit_store WHERE key = 'fingerprint'")
        let container = try database.container(for: TodoItem.self, Trip.self)
        let context = ModelContext(container)
        let items = try context.fetch(FetchDescriptor<TodoItem>())
        #expect(items.map(\.priority) == [0], "the column came back with its default")
        context.insert(Trip(name: "new table", nights: 1))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func stringsSortByCodePointAndMatchCaseSensitivelyAndLiterally() throws {
        let database = PostgresTestDatabase()
        let context = ModelContext(try database.container(for: TodoItem.self))
        for title in ["b", "B", "a", "É", "é", "100%", "1_0", "it's", "back\\slash", "Z"] { context.insert(TodoItem(title: title)) }
        try context.save()
        let sorted = try context.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(sorted == ["100%", "1_0", "B", "Z", "a", "b", "back\\slash", "it's", "É", "é"])
        func titles(_ predicate: Predicate<TodoItem>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
        }
        #expect(try titles(#Predicate { $0.title.contains("b") }) == ["b", "back\\slash"])
        #expect(try titles(#Predicate { $0.title.contains("%") }) == ["100%"])
        #expect(try titles(#Predicate { $0.title.contains("_") }) == ["1_0"])
        #expect(try titles(#Predicate { $0.title.contains("'") }) == ["it's"])
        #expect(try titles(#Predicate { $0.title.contains("\\") }) == ["back\\slash"])
        #expect(try titles(#Predicate { $0.title.starts(with: "1") }) == ["100%", "1_0"])
        #expect(try titles(#Predicate { $0.title > "Z" && $0.title < "c" }) == ["a", "b", "back\\slash"])
    }

    /// PostgreSQL's text cannot hold NUL: a save with one throws `DatabaseError` code
    /// `unsupportedValue` naming the property, writes nothing, and the context saves once the
    /// value is fixed; a fetch comparing with one throws the same code.
    @Test func aStringWithNULIsAnUnsupportedValueNamingThePropertyAndNothingIsWritten() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        let stored = TodoItem(title: "stored")
        context.insert(stored)
        try context.save()
        func titles() throws -> [[String]] { try database.rows(#"SELECT "title" FROM "TodoItem" ORDER BY "title""#) }
        func expectUnsupported(_ step: String) throws {
            let before = try titles()
            #expect {
                try context.save()
            } throws: { error in
                guard case .database(let failure)? = modelKitError(error) else { return false }
                return failure.code == .unsupportedValue && failure.message.contains("TodoItem.title") && "\(error)".contains("NUL")
            }
            #expect(try titles() == before, "\(step): the store is unchanged")
            #expect(context.hasChanges, "\(step)")
        }

        let added = TodoItem(title: "fine")
        let bad = TodoItem(title: "bad\u{0}title")
        context.insert(added)
        context.insert(bad)
        context.delete(stored)
        try expectUnsupported("an insert")
        bad.title = "fixed"
        try context.save()
        #expect(try titles() == [["fine"], ["fixed"]])

        added.title = "changed\u{0}"
        bad.title = "changed too"
        try expectUnsupported("an update")
        added.title = "changed"
        try context.save()
        #expect(try titles() == [["changed"], ["changed too"]])

        let searched = "changed\u{0}"
        #expect {
            try context.fetch(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == searched }))
        } throws: { error in
            databaseError(error)?.code == .unsupportedValue
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1])
    func doublesRoundTripExactlyAndNaNEqualsNothing(value: Double) throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: AllTypes.self)
        let context = ModelContext(container)
        let model = AllTypes()
        model.double = value
        model.optionalDouble = value
        context.insert(model)
        try context.save()
        let read = try #require(try ModelContext(container).fetch(FetchDescriptor<AllTypes>()).first)
        if value.isNaN {
            #expect(read.double.isNaN && read.optionalDouble?.isNaN == true)
        } else {
            #expect(read.double.bitPattern == value.bitPattern)
            #expect(read.optionalDouble?.bitPattern == value.bitPattern)
        }
        let equal = try ModelContext(container).fetchCount(FetchDescriptor<AllTypes>(predicate: #Predicate { $0.double == value }))
        #expect(equal == (value.isNaN ? 0 : 1), "Swift's == : a NaN equals nothing, not even NaN")
    }

    @Test func uniqueUpsertsUpdateTheRowThatConflictsOnEitherConstraint() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: Member.self)
        let context = ModelContext(container)
        context.insert(Member(email: "ada@example.com", handle: "ada", name: "Ada"))
        context.insert(Member(email: "bob@example.com", handle: "bob", name: "Bob"))
        try context.save()
        let writer = ModelContext(container)
        writer.insert(Member(email: "ada@example.com", handle: "ada", name: "Ada Lovelace"))
        writer.insert(Member(email: "robert@example.com", handle: "bob", name: "Robert"))
        try writer.save()
        let accounts = try ModelContext(container).fetch(FetchDescriptor<Member>(sortBy: [SortDescriptor(\.handle)]))
        #expect(accounts.map(\.name) == ["Ada Lovelace", "Robert"])
        #expect(accounts.map(\.email) == ["ada@example.com", "robert@example.com"])
    }

    @Test func anUnreachableServerIsATypedErrorWithinTheConnectTimeoutAndHidesThePassword() throws {
        let url = URL(string: "postgresql://app:s3cret-pw@127.0.0.1:1/notes")!
        let configuration = PostgresConfiguration(url: url, connectTimeout: .seconds(2))
        #expect(!configuration.description.contains("s3cret-pw"))
        let start = Date()
        #expect {
            _ = try ModelContainer(for: Schema([TodoItem.self]), configurations: [configuration])
        } throws: { error in
            guard let failure = databaseError(error), let postgres = failure.underlying as? PostgresError else { return false }
            return failure.code == .cannotConnect && postgres.kind == .cannotConnect && !"\(error)".contains("s3cret-pw")
        }
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test func aDroppedConnectionFailsTheOperationWithATypedErrorAndTheNextOneReconnects() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "before"))
        try context.save()
        try database.dropConnections(instance: 1)
        context.insert(TodoItem(title: "during"))
        #expect {
            try context.save()
        } throws: { error in
            databaseError(error)?.code == .connectionLost
        }
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["before", "during"])
    }

    /// A read retried after `connectionLost` runs on the new connection: its statement was
    /// prepared in the old session, and had failed with "prepared statement does not exist".
    @Test func aReadRetriedAfterALostConnectionPreparesItsStatementAgain() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "kept"))
        try context.save()
        let reader = ModelContext(container)
        let all = FetchDescriptor<TodoItem>()
        #expect(try reader.fetch(all).count == 1)
        try database.dropConnections(instance: 1)
        var lost = 0
        for _ in 0..<3 {
            do {
                #expect(try reader.fetch(all).map(\.title) == ["kept"])
                break
            } catch let error where databaseError(error)?.code == .connectionLost {
                lost += 1
            }
        }
        #expect(lost <= 1, "only the read that met the dropped connection fails")
        #expect(try reader.fetchCount(all) == 1)
    }

    @Test func batchDeletesAndCountsRunOnTheServer() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        for index in 0..<100 {
            let item = TodoItem(title: "item \(index)")
            item.priority = index % 5
            context.insert(item)
        }
        try context.save()
        try context.delete(model: TodoItem.self, where: #Predicate { $0.priority == 0 })
        #expect(try context.fetchCount(FetchDescriptor<TodoItem>()) == 80)
        var page = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.priority, order: .reverse), SortDescriptor(\.title)])
        page.fetchOffset = 10
        page.fetchLimit = 5
        #expect(try context.fetch(page).count == 5)
        let ids = [1, 3]
        #expect(try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { ids.contains($0.priority) })) == 40)
        let many = Array(0..<100)
        #expect(try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { many.contains($0.priority) })) == 80)
    }
}

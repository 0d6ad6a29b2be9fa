import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
@testable import ModelKit
import Testing

@Suite struct StoreErrorTests {
    @Test func fileThatIsNotADatabaseIsATypedError() throws {
        let store = try TemporaryStore()
        try Data(repeating: 0x41, count: 4096).write(to: store.url)
        #expect {
            _ = try store.container(for: TodoItem.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.notADatabase(let url, let failure) = error else { return false }
            return url == store.url && failure.code == .notADatabase && (failure.underlying as? SQLiteError)?.code == SQLITE_NOTADB
        }
        #expect(try Data(contentsOf: store.url) == Data(repeating: 0x41, count: 4096))
    }

    @Test func truncatedDatabaseIsATypedErrorNotACrash() throws {
        let store = try TemporaryStore()
        do {
            let context = ModelContext(try store.container(for: TodoItem.self))
            for index in 0..<2000 { context.insert(TodoItem(title: String(repeating: "x", count: 100) + "\(index)")) }
            try context.save()
        }
        _ = try store.sql("PRAGMA wal_checkpoint(TRUNCATE)")
        let data = try Data(contentsOf: store.url)
        try data.prefix(data.count / 2).write(to: store.url)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.url.path + suffix) }

        #expect {
            let context = ModelContext(try store.container(for: TodoItem.self))
            _ = try context.fetch(FetchDescriptor<TodoItem>())
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.notADatabase(_, let failure) = error else { return false }
            return (failure.underlying as? SQLiteError)?.code == SQLITE_CORRUPT
        }
    }

    @Test func unwritableDirectoryIsATypedError() throws {
        let store = try TemporaryStore()
        let blocker = store.directory.appendingPathComponent("file")
        try Data().write(to: blocker)
        let url = blocker.appendingPathComponent("inside/test.store")  // a path through a regular file
        #expect {
            _ = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: url))
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.cannotOpenStore(let failed, _) = error else { return false }
            return failed == url && "\(error)".contains("writable")
        }
    }

    @Test func fetchingATypeMissingFromTheSchemaSaysHowToFixIt() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        #expect {
            _ = try context.fetch(FetchDescriptor<Note>())
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.modelNotInSchema("Note") = error else { return false }
            return "\(error)".contains("Add Note.self to the ModelContainer's types")
        }
    }

    @Test func insertingATypeMissingFromTheSchemaStops() async {
        await #expect(processExitsWith: .failure) {
            let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
            context.insert(Note(text: "nowhere to go"))
        }
    }

    @Test func failedSaveLeavesTheStoreExactlyAsBefore() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: TodoItem.self))
        let existing = TodoItem(title: "existing")
        context.insert(existing)
        try context.save()
        _ = try store.sql(
            "CREATE TRIGGER refuse BEFORE INSERT ON TodoItem WHEN NEW.title = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let before = try store.sql("SELECT * FROM TodoItem")

        existing.title = "changed"
        context.insert(TodoItem(title: "good"))
        context.insert(TodoItem(title: "bad"))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.database(let failure) = error else { return false }
            return failure.code == .constraintViolation && failure.message == "refused"
                && (failure.underlying as? SQLiteError)?.code == SQLITE_CONSTRAINT
        }
        #expect(try store.sql("SELECT * FROM TodoItem") == before)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 2)
        #expect(context.insertedModelsArray.allSatisfy { $0.persistentModelID.isTemporary })
    }

    @Test func storedValueOfTheWrongTypeIsATypedError() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: TodoItem.self))
        context.insert(TodoItem(title: "a"))
        try context.save()
        _ = try store.sql("UPDATE TodoItem SET isComplete = 'yes'")
        #expect {
            _ = try ModelContext(try store.container(for: TodoItem.self)).fetch(FetchDescriptor<TodoItem>())
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.storedValueMismatch("TodoItem", "isComplete", "Bool", _) = error else { return false }
            return true
        }
    }

    /// What the database refuses reaches the app as the engine's own error, with the same code
    /// from SQLite and PostgreSQL, and the database's own error beside it.
    @Test(arguments: StoreKind.sharedStores)
    func aRefusedWriteIsTheSameDatabaseErrorOnEveryBackend(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: TodoItem.self)
        _ = try store.sql(#"CREATE UNIQUE INDEX "one_title" ON "TodoItem" ("title")"#)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "twice"))
        try context.save()
        context.insert(TodoItem(title: "twice"))
        #expect {
            try context.save()
        } throws: { error in
            guard case .database(let failure)? = error as? ModelKitError else { return false }
            let backend = kind == .postgres ? "PostgreSQL" : "SQLite"
            return failure.code == .uniqueViolation && failure.sql?.contains("INSERT") == true && "\(failure)".hasPrefix(backend)
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 1)
    }

    @Test func sqliteErrorDescriptionNamesCodeMessageAndStatement() {
        let error = SQLiteError(code: 19, message: "UNIQUE constraint failed: Item.code", sql: "INSERT INTO Item VALUES (?)")
        #expect(error.description == "SQLite error 19: UNIQUE constraint failed: Item.code while executing \"INSERT INTO Item VALUES (?)\"")
    }
}

/// Another program's database is never written to, and its tables are never taken over.
@Suite struct ForeignFileTests {
    @Test func anotherProgramsDatabaseIsRefusedWithItsBytesUnchanged() throws {
        let store = try TemporaryStore()
        let other = try RawConnection(path: store.url.path)
        try other.execute("CREATE TABLE Customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO Customers (name) VALUES ('Ada')")
        let before = try Data(contentsOf: store.url)
        #expect {
            try store.container(for: TodoItem.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.notAModelKitStore(_, let tables) = error else { return false }
            return tables == ["Customers"] && "\(error)".contains("left untouched")
        }
        #expect(try Data(contentsOf: store.url) == before)
        #expect(try store.sql("PRAGMA journal_mode") == [["delete"]])
    }

    @Test func aTableOfTheSameNameThatModelKitDidNotMakeIsRefused() throws {
        let store = try TemporaryStore()
        _ = try store.container(for: Note.self)
        _ = try store.sql("CREATE TABLE TodoItem (something TEXT)")
        #expect {
            try store.container(for: Note.self, TodoItem.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.incompatibleSchemaChange(let entity, _, let reason) = error else { return false }
            return entity == "TodoItem" && reason.contains("did not make")
        }
        #expect(try store.sql("SELECT name FROM pragma_table_info('TodoItem')") == [["something"]])
    }
}

import Foundation
import ModelKit
import ModelKitPostgres
import Testing

/// A transaction's start travels with its first statement, in one libpq pipeline: what fails
/// there, or on a connection that drops, is reported and leaves nothing written.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresPipelineTests {
    /// A container whose `TodoItem` table refuses the title "refused", as a server-side rule would.
    func refusingContainer(_ database: PostgresTestDatabase) throws -> ModelContainer {
        let container = try database.container(for: TodoItem.self)
        try database.execute(#"ALTER TABLE "TodoItem" ADD CONSTRAINT "no_refused" CHECK ("title" <> 'refused')"#)
        return container
    }

    func failedStatement(_ error: any Error) -> String? {
        if let error = databaseError(error) { return error.sql }
        if let error = modelKitError(error) { return "\(error)" }
        return nil
    }

    @Test func aSaveWhoseFirstStatementFailsWritesNothingNamesTheStatementAndTheNextSaveWorks() throws {
        let database = PostgresTestDatabase()
        let container = try refusingContainer(database)
        let context = ModelContext(container)
        let refused = TodoItem(title: "refused")
        context.insert(refused)
        #expect {
            try context.save()
        } throws: { error in
            failedStatement(error)?.contains("INSERT") == true && "\(error)".contains("no_refused")
        }
        #expect(try database.rows(#"SELECT count(*) FROM "TodoItem""#) == [["0"]])
        #expect(try database.rows(#"SELECT count(*) FROM "_modelkit_history""#) == [["0"]])
        refused.title = "accepted"
        try context.save()
        #expect(try database.rows(#"SELECT "title" FROM "TodoItem""#) == [["accepted"]])
    }

    @Test func aSaveThatFailsAfterItsFirstStatementWritesNothing() throws {
        let database = PostgresTestDatabase()
        let container = try refusingContainer(database)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "first"))
        try context.save()
        let kept = try context.fetch(FetchDescriptor<TodoItem>())[0]
        kept.title = "changed"
        context.insert(TodoItem(title: "refused"))
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try database.rows(#"SELECT "title" FROM "TodoItem""#) == [["first"]])
        #expect(try database.rows(#"SELECT count(*) FROM "_modelkit_history""#) == [["1"]])
    }

    /// The connection drops after the save's writes were sent and before its `COMMIT`: the save
    /// fails with `connectionLost`, nothing is committed, and it is not sent again on a new
    /// connection behind the caller's back. Saving again writes the row once.
    @Test func aConnectionDroppedBeforeTheCommitIsReportedAndNeverRetriedPastIt() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        context.insert(TodoItem(title: "before"))
        try context.save()
        context.statementTrace = { sql in
            guard sql.hasSuffix("COMMIT") else { return }
            try? database.dropConnections(instance: 1)
        }
        context.insert(TodoItem(title: "once"))
        #expect {
            try context.save()
        } throws: { error in
            databaseError(error)?.code == .connectionLost && (databaseError(error)?.underlying as? PostgresError)?.kind == .connectionLost
        }
        context.statementTrace = nil
        #expect(try database.rows(#"SELECT "title" FROM "TodoItem" ORDER BY "title""#) == [["before"]])
        #expect(context.hasChanges)
        try context.save()
        #expect(try database.rows(#"SELECT "title" FROM "TodoItem" ORDER BY "title""#) == [["before"], ["once"]])
    }

    /// The connection drops between two statements of one save: the save fails with
    /// `connectionLost`, no statement of it runs on a new connection outside its transaction,
    /// and the next save reconnects.
    @Test func aConnectionDroppedInsideASaveFailsItWithoutRunningTheRestOutsideItsTransaction() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        let kept = TodoItem(title: "kept")
        context.insert(kept)
        try context.save()
        kept.title = "changed"
        context.insert(TodoItem(title: "added"))
        var statements = 0
        context.statementTrace = { sql in
            guard !sql.hasPrefix("BEGIN") else { return }
            statements += 1
            guard statements == 2 else { return }
            try? database.dropConnections(instance: 1)
        }
        #expect {
            try context.save()
        } throws: { error in
            databaseError(error)?.code == .connectionLost && (databaseError(error)?.underlying as? PostgresError)?.kind == .connectionLost
        }
        context.statementTrace = nil
        #expect(try database.rows(#"SELECT "title" FROM "TodoItem" ORDER BY "title""#) == [["kept"]])
        try context.save()
        #expect(try database.rows(#"SELECT "title" FROM "TodoItem" ORDER BY "title""#) == [["added"], ["changed"]])
    }

    /// A read transaction's start, held back, goes with its first read; a rollback of a
    /// transaction that never sent anything sends nothing.
    @Test func readsAndEmptyTransactionsWorkWithTheirStartHeldBack() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: TodoItem.self)
        let context = ModelContext(container)
        try context.transaction {}
        context.insert(TodoItem(title: "a"))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title) == ["a"])
        #expect(throws: CancellationError.self) {
            try context.transaction { throw CancellationError() }
        }
        try context.save()
        #expect(try database.rows(#"SELECT count(*) FROM "TodoItem""#) == [["1"]])
    }
}

import Foundation
import ModelKit
import Testing

private struct Refused: Error {}

/// `transaction(block:)` saves the block's changes in one commit, or undoes them and writes nothing.
@Suite struct TransactionTests {
    @Test(arguments: StoreKind.allCases)
    func aThrowingBlockUndoesItsChangesKeepsEarlierOnesAndWritesNothing(kind: StoreKind) throws {
        let store = try TemporaryStore()
        let container = kind == .onDisk ? try store.container(for: TodoItem.self) : try inMemoryContainer(for: TodoItem.self)
        let context = ModelContext(container)
        let first = TodoItem(title: "first")
        let second = TodoItem(title: "second")
        context.insert(first)
        context.insert(second)
        try context.save()

        first.priority = 1  // pending before the transaction: stays pending
        let pendingInsert = TodoItem(title: "pending insert")
        context.insert(pendingInsert)
        let added = TodoItem(title: "added in the block")
        #expect(throws: Refused.self) {
            try context.transaction {
                context.insert(added)
                first.priority = 2
                first.title = "renamed in the block"
                second.isComplete = true
                context.delete(second)
                pendingInsert.title = "changed in the block"
                throw Refused()
            }
        }
        #expect(first.priority == 1)
        #expect(first.title == "first")
        #expect(!second.isDeleted)
        #expect(!second.isComplete)
        #expect(pendingInsert.title == "pending insert")
        #expect(context.insertedModelsArray.map(\.persistentModelID) == [pendingInsert.persistentModelID])
        #expect(context.changedModelsArray.map(\.persistentModelID) == [first.persistentModelID])
        #expect(context.deletedModelsArray.isEmpty)
        #expect(added.modelContext == nil)
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["first", "second"])

        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(stored.map(\.title) == ["first", "pending insert", "second"])
        #expect(stored.map(\.priority) == [1, 0, 0])
    }

    @Test func aBlockThatReturnsIsSavedInOneCommit() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        try context.transaction {
            context.insert(TodoItem(title: "a"))
            context.insert(TodoItem(title: "b"))
        }
        #expect(!context.hasChanges)
        #expect(statements.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 2)
    }

    @Test func aFailedSaveInsideTheTransactionUndoesTheBlock() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Account.self)
        let context = ModelContext(container)
        context.insert(Account(code: "A", balance: 1))
        try context.save()
        _ = try store.sql("CREATE TRIGGER refuse BEFORE INSERT ON Account BEGIN SELECT RAISE(ABORT, 'refused'); END")
        let refused = Account(code: "B", balance: 2)
        #expect(throws: ModelKitError.self) {
            try context.transaction { context.insert(refused) }
        }
        #expect(!context.hasChanges)
        #expect(refused.modelContext == nil)
    }
}

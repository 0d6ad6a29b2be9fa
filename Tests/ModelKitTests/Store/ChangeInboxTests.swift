import Foundation
import Testing

@testable import ModelKit

/// A context's inbox of other contexts' changes stays bounded however long the context does not
/// read, and the context still sees every change when it does.
@Suite struct ChangeInboxTests {
    private func change(inserting keys: Range<Int64>) -> StoreChange {
        StoreChange(inserted: ["Item": Array(keys)])
    }

    @Test func changesUpToTheKeyLimitDrainAsDeliveredAndPastItAsOneChangeOfUnknownRows() {
        let inbox = ChangeInbox(keyLimit: 10)
        inbox.keep(change(inserting: 0..<4))
        inbox.keep(change(inserting: 4..<10))
        #expect(inbox.drain().map(\.keyCount) == [4, 6])
        #expect(!inbox.hasChanges)
        inbox.keep(change(inserting: 0..<4))  // counting starts again after a drain
        #expect(inbox.drain().map(\.keyCount) == [4])
        inbox.keep(change(inserting: 0..<6))
        inbox.keep(change(inserting: 6..<11))
        inbox.keep(change(inserting: 11..<12))
        let collapsed = inbox.drain()
        #expect(collapsed.count == 1 && collapsed[0].isExternal)
        inbox.keep(change(inserting: 0..<3))
        #expect(inbox.drain().map(\.keyCount) == [3])
    }

    @Test func aChangeOfUnknownRowsTakesInEveryChangeAfterIt() {
        let inbox = ChangeInbox(keyLimit: 10)
        inbox.keep(change(inserting: 0..<2))
        inbox.keep(.external)
        inbox.keep(change(inserting: 2..<4))
        let drained = inbox.drain()
        #expect(drained.count == 1 && drained[0].isExternal)
    }

    /// A context that did not read while another saved more keys than its inbox keeps still
    /// sees the update and the delete of the models it holds on its next read.
    @Test func aContextIdleThroughMoreKeysThanItsInboxKeepsSeesEveryChangeOnItsNextRead() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let writer = ModelContext(container)
        writer.insert(TodoItem(title: "kept"))
        writer.insert(TodoItem(title: "gone"))
        try writer.save()
        let idle = ModelContext(container)
        let held = try idle.fetch(FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)]))
        #expect(held.map(\.title) == ["gone", "kept"])
        for index in 0...idle.links[0].inbox.keyLimit { writer.insert(TodoItem(title: "bulk \(index)")) }
        try writer.save()
        let (gone, kept) = (held[0].persistentModelID, held[1].persistentModelID)
        try #require(writer.model(for: kept) as? TodoItem).priority = 9
        writer.delete(try #require(writer.model(for: gone) as? TodoItem))
        try writer.save()
        idle.processPendingChanges()
        #expect(held[1].priority == 9)
        #expect(held[0].isDeleted)
    }
}

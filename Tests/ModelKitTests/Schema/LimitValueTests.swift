import Foundation
@testable import ModelKit
import Testing

@Model final class Attachment {
    var name: String
    var bytes: Data
    init(name: String, bytes: Data) {
        self.name = name
        self.bytes = bytes
    }
}

/// Values at their limits get typed errors, never a trap.
@Suite struct LimitValueTests {
    func context() throws -> ModelContext {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        for title in ["a", "b", "c"] { context.insert(TodoItem(title: title)) }
        try context.save()
        return context
    }

    @Test(arguments: [(-1, nil), (nil, -1), (-5, -5)] as [(Int?, Int?)])
    func negativeOffsetsAndLimitsThrowInvalidFetchDescriptor(offset: Int?, limit: Int?) throws {
        let context = try context()
        context.insert(TodoItem(title: "pending"))  // the Swift path, which used to trap
        var descriptor = FetchDescriptor<TodoItem>()
        descriptor.fetchOffset = offset
        descriptor.fetchLimit = limit
        #expect {
            try context.fetch(descriptor)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.invalidFetchDescriptor(let reason) = error else { return false }
            return reason.contains("-")
        }
    }

    @Test(arguments: [false, true])
    func theLargestLimitWithAnOffsetReturnsTheRest(pending: Bool) throws {
        let context = try context()
        if pending { context.insert(TodoItem(title: "d")) }
        var descriptor = FetchDescriptor<TodoItem>(sortBy: [SortDescriptor(\.title)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = Int.max
        #expect(try context.fetch(descriptor).map(\.title) == (pending ? ["b", "c", "d"] : ["b", "c"]))
        descriptor.fetchOffset = Int.max
        #expect(try context.fetch(descriptor).isEmpty)
    }

    @Test func enumerateWithANonPositiveBatchSizeThrows() throws {
        let context = try context()
        #expect(throws: ModelKitError.self) { try context.enumerate(FetchDescriptor<TodoItem>(), batchSize: 0) { _ in } }
        var seen = 0
        try context.enumerate(FetchDescriptor<TodoItem>(), batchSize: 1) { _ in seen += 1 }
        #expect(seen == 3)
    }

    @Test func dataOfTwoGibibytesThrowsValueTooLargeAndWritesNothing() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Attachment.self)
        let context = ModelContext(container)
        context.insert(Attachment(name: "huge", bytes: Data(count: 1 << 31)))  // zero pages: nothing touched
        #expect {
            try context.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.valueTooLarge = error else { return false }
            return "\(error)".contains("too big") || "\(error)".contains("longer than SQLite can store")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Attachment>()) == 0)
    }

    @Test func errorTextsStayShortForLongStatements() {
        let error = SQLiteError(code: 1, message: "too many SQL variables", sql: "SELECT " + String(repeating: "?, ", count: 100_000))
        #expect("\(error)".count < 500)
    }
}

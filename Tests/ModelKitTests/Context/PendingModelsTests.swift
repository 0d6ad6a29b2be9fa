import Testing

@testable import ModelKit

@Suite struct PendingModelsTests {
    /// Random adds and removals, one by one and in batches, agree with a plain array doing the
    /// same: the order of addition is kept, and a model added again goes to the end.
    @Test(arguments: 0..<20)
    func behavesLikeAnOrderedSetThroughRemovals(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 11)
        let models = (0..<60).map { TodoItem(title: "\($0)") }
        var pending = PendingModels()
        var expected: [TodoItem] = []
        for _ in 0..<2_000 {
            let model = models.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                pending.add(model)
                if !expected.contains(where: { $0 === model }) { expected.append(model) }
            case 5..<9:
                #expect(pending.remove(model) == expected.contains { $0 === model })
                expected.removeAll { $0 === model }
            default:
                let batch = (0..<Int.random(in: 0...5, using: &random)).map { _ in models.randomElement(using: &random)! }
                pending.remove(batch)
                expected.removeAll { model in batch.contains { $0 === model } }
            }
            #expect(pending.models.map { ObjectIdentifier($0) } == expected.map { ObjectIdentifier($0) })
            #expect(pending.isEmpty == expected.isEmpty)
            #expect(pending.containsModel(of: TodoItem.self) == !expected.isEmpty)
            #expect(pending.count(of: TodoItem.self) == expected.count)
        }
    }

    /// A type is among the pending models while one of its models is, and not once its models
    /// are removed, though they stay in the array marked stale.
    @Test func containsAModelOfATypeOnlyWhileOneIsPending() {
        var pending = PendingModels()
        #expect(!pending.containsModel(of: TodoItem.self))
        let items = (0..<4).map { TodoItem(title: "\($0)") }
        let note = Note(text: "n")
        for item in items { pending.add(item) }
        pending.add(note)
        #expect(pending.containsModel(of: TodoItem.self) && pending.containsModel(of: Note.self))
        pending.remove(note)
        #expect(!pending.containsModel(of: Note.self))
        for item in items.dropLast() { pending.remove(item) }
        #expect(pending.containsModel(of: TodoItem.self))
        pending.remove(items[3])
        #expect(!pending.containsModel(of: TodoItem.self))
    }

    /// A type with nothing pending, while thousands of models of another type are, has no
    /// pending changes, and its fetch sees the stored rows; it has some once one of its own is.
    @Test func aTypeWithNothingPendingIsToldApartFromManyPendingModelsOfAnother() throws {
        let container = try inMemoryContainer(for: TodoItem.self, Note.self)
        let context = ModelContext(container)
        context.insert(Note(text: "saved"))
        try context.save()
        for index in 0..<5_000 { context.insert(TodoItem(title: "\(index)")) }
        #expect(!context.hasPendingChanges(of: Note.self))
        #expect(context.hasPendingChanges(of: TodoItem.self))
        var page = FetchDescriptor<Note>()
        page.fetchLimit = 1
        #expect(try context.fetch(page).map(\.text) == ["saved"])
        context.insert(Note(text: "unsaved"))
        #expect(context.hasPendingChanges(of: Note.self))
        #expect(try context.fetch(FetchDescriptor<Note>()).map(\.text) == ["saved", "unsaved"])
    }

    /// Deleting unsaved models one by one, newest first, costs each delete the same whatever
    /// the number pending (it was a scan of them all); the rest save in the order inserted.
    @Test func deletingManyUnsavedModelsKeepsTheRestInOrder() throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let context = ModelContext(container)
        let items = (0..<20_000).map { TodoItem(title: String(format: "%05d", $0)) }
        for item in items { context.insert(item) }
        for item in items.reversed() where Int(item.title)! % 3 != 0 { context.delete(item) }
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title)
        #expect(saved == items.map(\.title).filter { Int($0)! % 3 == 0 })
    }
}

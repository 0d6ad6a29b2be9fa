import Foundation
import ModelKit
import Testing

@Test func smoke() throws {
    let container = try ModelContainer(for: TodoItem.self, Note.self, Account.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)
    let item = TodoItem(title: "Buy milk")
    context.insert(item)
    #expect(context.hasChanges)
    try context.save()
    #expect(!context.hasChanges)
    item.isComplete = true
    #expect(context.hasChanges)
    try context.save()
    let other = ModelContext(container)
    let fetched = try other.fetch(FetchDescriptor<TodoItem>())
    #expect(fetched.count == 1)
    #expect(fetched.first?.title == "Buy milk")
    #expect(fetched.first?.isComplete == true)
    #expect(try context.fetch(FetchDescriptor<TodoItem>()).first === item)
}

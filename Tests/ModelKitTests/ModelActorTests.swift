import Foundation
import ModelKit
import Testing

@ModelActor
actor Importer {
    func importItems(_ titles: [String]) throws -> [PersistentIdentifier] {
        let items = titles.map { TodoItem(title: $0) }
        for item in items { modelContext.insert(item) }
        try modelContext.save()
        return items.map(\.persistentModelID)
    }

    func title(of identifier: PersistentIdentifier) -> String? {
        self[identifier, as: TodoItem.self]?.title
    }
}

@Suite struct ModelActorTests {
    @Test func aModelActorWorksOffTheMainActorWithItsOwnContext() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let importer = Importer(modelContainer: container)
        #expect(importer.modelContainer === container)
        let identifiers = try await importer.importItems(["a", "b", "c"])
        #expect(identifiers.allSatisfy { !$0.isTemporary })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 3)
        #expect(await importer.title(of: identifiers[1]) == "b")
        let elsewhere = Importer(modelContainer: container)
        #expect(await elsewhere.title(of: identifiers[2]) == "c")
    }
}
